#!/usr/bin/env bash
# Sets keel's text of each file of convert/testdata/corpus beside the text
# mammoth, SheetJS and LibreOffice give for it, in one run: the share of
# each peer's words keel's text holds and the time of each, as a Markdown
# table (BENCHMARKS.md, "Converters beside their peers"). Needs Node 20,
# npm, Go and LibreOffice (soffice); fails when keel holds less than 98% of
# a peer's words, passages the file hides aside.
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --prefix test/convert-peers --no-audit --no-fund --loglevel=error
node test/convert-peers/compare.mjs
