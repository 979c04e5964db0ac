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
  cat <<'MAN'
.SH EXAMPLES
Summarise a verbose build log (what got fused, precisions, memory, findings):
.PP
.RS
.nf
trtlens summary build.log
.fi
.RE
.PP
Every layer of the final build as CSV, and the ten slowest layers of a profiled run:
.PP
.RS
.nf
trtlens layers \-\-format csv build.log \-o layers.csv
trtlens profile \-\-top 10 engine.graph.json engine.profile.json engine.timing.json
.fi
.RE
.PP
Where each ONNX node went, and what changed between two builds (exit 1 on a regression):
.PP
.RS
.nf
trtlens provenance build.log \-\-onnx model.onnx
trtlens diff main/build.log pr/build.log \-\-fail\-on latency:+5%
.fi
.RE
.PP
A self-contained HTML report, and shell completion for the current bash session:
.PP
.RS
.nf
trtlens report capture/ \-\-format html \-o report.html
source <(trtlens completion bash)
.fi
.RE
.SH ENVIRONMENT
.TP
.B TRTLENS_GRAMMAR_DIR
Directory of *.re2 grammar files that replace the built-in ones of the same name (as
\fB\-\-grammar\-dir\fR). When neither is given, the grammar files installed with trtlens are read
(\fI/usr/share/trtlens/grammar\fR for the package), else the ones built into the binary.
.TP
.B NO_COLOR
When set and not empty, no colour (unless \fB\-\-color=always\fR).
.TP
.B COLUMNS
Width tables are fitted to on a terminal, instead of the terminal's own width.
.SH FILES
.TP
.I /usr/share/trtlens/grammar/*.re2
The RE2 patterns that recognise TensorRT's log lines, one file per family of lines.
.SH EXIT STATUS
.TP
.B 0
Success.
.TP
.B 1
The command's own "found problems" outcome: a finding at the \fB\-\-fail\-on\fR level, a
\fBdiff\fR gate breached.
.TP
.B 2
Usage or input error, reported as \fBtrtlens: PATH[:LINE]: reason\fR on standard error.
.TP
.B 3
Internal error (a bug: please report it with the input).
MAN
} > "$OUT"
