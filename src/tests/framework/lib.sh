# Shared helpers for the smoke tests (sourced). Results go to stdout as PASS:/FAIL:/SKIP: lines.
failures=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failures=$((failures + 1)); }

# expect NAME LOG REGEX WHAT — fails NAME unless LOG has a line matching REGEX (extended).
expect() {
	if ! grep -aqE "$3" "$2"; then
		fail "$1" "$4 (no line matching /$3/ in $2)"
		return 1
	fi
}

# Integer from the first match of a sed -E expression with one group, or empty.
extract() {
	sed -nE "s/$2/\\1/p" "$1" | head -n1
}
