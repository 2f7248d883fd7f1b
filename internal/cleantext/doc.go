// Package cleantext makes text from outside (a file's name given by a
// sender, a line of a file's content, a model's words) safe to show on
// one line of a prompt or a terminal: escape sequences go whole, so that
// none can move a cursor, retitle a window or hide what follows, and
// control characters go.
//
// # Escape sequences
//
// [Line] follows ECMA-48: a control sequence (ESC [ or the C1 CSI) ends
// at its final byte; an operating system command, device control string
// and their kin (ESC ], P, X, ^, _) end at BEL or the string terminator;
// any other escape is ESC, intermediate bytes and one final byte. A
// sequence left open runs to the end of the text, so that no part of it
// is shown.
package cleantext
