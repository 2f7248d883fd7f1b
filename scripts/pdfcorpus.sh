#!/usr/bin/env bash
# Writes the PDFs of convert/testdata/pdf from their sources with the
# software users have: LibreOffice (report.fodt), Chromium (columns.html)
# and pdflatex (paper.tex), into OUT (default: a new temporary directory),
# and prints OUT. With --commit it also refreshes the one PDF the
# repository keeps, report.pdf, which ExamplePDF reads.
# Needs: libreoffice-writer, chromium, texlive-latex-base, fonts-wqy-microhei.
set -euo pipefail
cd "$(dirname "$0")/.."
src=convert/testdata/pdf
out=${OUT:-$(mktemp -d)}
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
soffice -env:UserInstallation="file://$profile/lo" --headless --convert-to pdf --outdir "$out" "$src/report.fodt" >/dev/null
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer --user-data-dir="$profile/chromium" \
	--print-to-pdf="$out/columns.pdf" "file://$PWD/$src/columns.html" 2>/dev/null
(cd "$out" && pdflatex -interaction=nonstopmode -halt-on-error "$OLDPWD/$src/paper.tex" >/dev/null)
rm -f "$out"/paper.aux "$out"/paper.log
if [ "${1:-}" = --commit ]; then
	cp "$out/report.pdf" "$src/report.pdf"
fi
echo "$out"
