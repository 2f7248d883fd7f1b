#!/usr/bin/env bash
# Reruns the PDF reader bake-off of docs/pdf.md: writes the corpus with
# LibreOffice, Chromium and pdflatex (scripts/pdfcorpus.sh) and the
# hand-made and hostile PDFs of the convert tests, then runs every reader
# on every file, each in a process of its own (PDFium's compiled module
# is cached in the output directory after its first, cold, start), and
# prints the Markdown table. Also prints the size each reader adds to a
# stripped binary.
# Needs: what pdfcorpus.sh needs, and poppler-utils.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
OUT="$out/files" scripts/pdfcorpus.sh >/dev/null
KEEL_WRITE_PDFS="$out/files" go test -count=1 -run TestWritePDFs ./convert >/dev/null
(cd scripts/pdfbakeoff && go build -o "$out/pdfbakeoff" .)
echo "PDFium cold start (compiling the module, no cache):"
"$out/pdfbakeoff" -lib pdfium "$out/files/form.pdf" 2>&1 >/dev/null | grep -E 'STARTUP|RESULT'
export PDFIUM_CACHE="$out/wazero-cache"
"$out/pdfbakeoff" -lib pdfium "$out/files/form.pdf" >/dev/null 2>&1 # fills the cache
"$out/pdfbakeoff" -dir "$out/files"
echo
echo "binary size each reader adds (stripped, linux/amd64):"
(cd scripts/pdfbakeoff/size && for r in none keel ledongthuc pdfcpu pdfium; do
	go build -ldflags=-s -o "$out/size-$r" "./$r" && printf '%s %d\n' "$r" "$(stat -c %s "$out/size-$r")"
done)
