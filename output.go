package main

import (
	"encoding/json"
	"io"
	"unicode/utf8"

	"boxoffice/booking"
)

// cleanWriter is the command line's output boundary: every byte the
// commands print to stdout or stderr passes booking.CleanText on its way,
// whatever its origin (a file name, a flag someone typed, a value already
// in the database), so nothing printed can move the cursor, set the
// window title or reorder a line. The counter's own screen is drawn on the
// raw terminal instead.
type cleanWriter struct {
	w     io.Writer
	carry []byte // the start of a UTF-8 sequence split across writes
}

func newCleanWriter(w io.Writer) *cleanWriter { return &cleanWriter{w: w} }

func (c *cleanWriter) Write(p []byte) (int, error) {
	buf := append(c.carry, p...)
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	c.carry = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(c.w, booking.CleanText(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// printJSON prints v as indented JSON with every character that could
// steer a terminal escaped as \uXXXX (booking.EscapeJSON): the output
// stays valid JSON that decodes to the data as stored.
func (c *cli) printJSON(v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		c.stderr.Write([]byte("boxoffice: cannot encode the output as JSON\n"))
		return
	}
	c.stdout.Write(append(booking.EscapeJSON(b), '\n'))
}
