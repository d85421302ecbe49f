# src/net/tcp.mk — TCP and HTTP: tests and fuzz targets (the sources are part of NET_SRCS).
