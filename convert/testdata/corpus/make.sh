#!/usr/bin/env bash
# Writes the corpus of office files the convert tests read, with Debian's
# LibreOffice (7.4 when it was last run), from the sources beside this
# script: report.fodt (a report with headings, a footnote and an endnote,
# a comment, hidden text, tracked changes, a picture with alt text, lists
# and a table), leads.fods (a workbook with formatted numbers, a date, a
# formula, a merged title, a comment and a hidden sheet), deck.fodp (a
# presentation with speaker notes in the notes placeholder and in a text
# box, a picture with alt text, a table and a hidden slide), memo.html,
# and charts.xlsx, a workbook with a chart written by excelize
# (chartbook/main.go) and saved again by LibreOffice, which caches the
# chart's values as Excel does (charts-excelize.xlsx is excelize's own).
# LibreOffice's EPUB export of the report is there too (report.epub).
# Every passage holds a marker (QZ...) that the tests look for in the
# converted text.
#
#   convert/testdata/corpus/make.sh
set -euo pipefail
cd "$(dirname "$0")"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
lo() {
	timeout 300 soffice -env:UserInstallation=file://"$profile" --headless "$@" >/dev/null 2>&1
}
out=$(mktemp -d)
lo --convert-to docx --outdir "$out" report.fodt
lo --convert-to odt --outdir "$out" report.fodt
lo --convert-to rtf --outdir "$out" report.fodt
lo --convert-to 'doc:MS Word 97' --outdir "$out" report.fodt
lo --convert-to epub --outdir "$out" report.fodt
lo --convert-to xlsx --outdir "$out" leads.fods
lo --convert-to ods --outdir "$out" leads.fods
lo --convert-to 'xls:MS Excel 97' --outdir "$out" leads.fods
lo --convert-to pptx --outdir "$out" deck.fodp
lo --convert-to odp --outdir "$out" deck.fodp
lo --convert-to 'ppt:MS PowerPoint 97' --outdir "$out" deck.fodp
# An HTML page saved from Writer/Web: its mimetype says text-web.
lo --convert-to 'odt:writerweb8_writer_template' --outdir "$out/web" memo.html
mv "$out/web/memo.odt" "$out/memo-web.odt"
lo --convert-to 'doc:MS Word 97' --outdir "$out" memo.html
(cd chartbook && go run .)
mv chartbook/charts.xlsx "$out/charts-excelize.xlsx"
cp "$out/charts-excelize.xlsx" "$out/charts.xlsx"
mkdir "$out/lo"
lo --convert-to xlsx --outdir "$out/lo" "$out/charts.xlsx"
mv "$out/lo/charts.xlsx" "$out/charts.xlsx"
rmdir "$out/lo" "$out/web"
for f in "$out"/*; do
	[ -f "$f" ] && mv "$f" .
done
rm -rf "$out"
ls -l
