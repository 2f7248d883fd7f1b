// Package officetest makes the office files that tests send to models:
// a workbook written by excelize, and a Word document built from its zip
// and XML parts as Word writes them. Tests of refused files use them to
// check that a model gets the file's text.
package officetest
