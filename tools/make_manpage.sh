#!/bin/sh
# Writes a man page (troff) for trtlens from its own --help texts: the top-level help, then
# each subcommand's help under its own heading, so the page never drifts from the binary.
# Usage: tools/make_manpage.sh path/to/trtlens out.1
set -eu
BIN=$1
OUT=$2
# Help text as literal troff: backslashes doubled first, then a leading . or ' neutralised.
esc() {
  sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/" -e 's/-/\\-/g'
}
version=$("$BIN" --version | head -n 1)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
  printf '.TH TRTLENS 1 "" "%s" "User Commands"\n' "$(printf '%s' "$version" | esc)"
  printf '.SH NAME\ntrtlens \\- what TensorRT did to your model, read from its logs and exports\n'
  printf '.SH SYNOPSIS\n.B trtlens\n.I SUBCOMMAND\n[\\fIOPTIONS\\fR] \\fIinputs\\fR...\n'
  printf '.SH DESCRIPTION\n.nf\n'
  "$BIN" --help | sed -e "s|^Usage: .*trtlens |Usage: trtlens |" | esc
  printf '.fi\n.SH SUBCOMMANDS\n'
  # Subcommand names: the first word of each line under "Subcommands:".
  "$BIN" --help | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}' > "$tmp"
  while read -r sub; do
    printf '.SS %s\n.nf\n' "$sub"
    "$BIN" "$sub" --help | sed -e "s|^Usage: .*trtlens |Usage: trtlens |" | esc
    printf '.fi\n'
  done < "$tmp"
  printf '.SH EXIT STATUS\n0 on success; 1 when a findings threshold is met; 2 on bad input or usage.\n'
} > "$OUT"
