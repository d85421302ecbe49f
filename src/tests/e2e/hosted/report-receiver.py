#!/usr/bin/env python3
# src/tests/e2e/hosted/report-receiver.py ADDRESS PORT OUTDIR — the boot server's side of the
# boot report in the report test: an HTTP server that takes POSTs (nginx serves static files
# and will not), writes each body to OUTDIR/report-<n>.txt with its request line and headers in
# OUTDIR/report-<n>.meta, answers 200, and touches OUTDIR/ready once it listens. Stopped by PID.
import http.server
import os
import sys

addr, port, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
count = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        global count
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length > 0 else b""
        count += 1
        base = os.path.join(outdir, "report-%d" % count)
        with open(base + ".txt.tmp", "wb") as f:
            f.write(body)
        os.rename(base + ".txt.tmp", base + ".txt")
        with open(base + ".meta", "w") as f:
            f.write("%s %s\n%s" % (self.command, self.path, self.headers))
        answer = b"report %d received\n" % count
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(answer)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, fmt, *args):
        sys.stderr.write("report-receiver: " + (fmt % args) + "\n")


server = http.server.HTTPServer((addr, port), Handler)
open(os.path.join(outdir, "ready"), "w").close()
server.serve_forever()
