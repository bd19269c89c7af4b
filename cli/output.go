package cli

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

// view is a command's answer: one value that prints as text for a person
// and, under --json, as JSON for a program. Its JSON form is the value
// itself, or jsonValue's when it has that method (nil: nothing, for text
// that has no machine form, like a table's header).
type view interface {
	writeText(w io.Writer)
}

type jsonViewer interface {
	jsonValue() any
}

// print emits v in the form --json asks for: the one place a command's
// answer is printed.
func (c *env) print(v view) {
	if !c.jsonOut {
		v.writeText(c.stdout)
		return
	}
	var out any = v
	if j, ok := v.(jsonViewer); ok {
		if out = j.jsonValue(); out == nil {
			return
		}
	}
	c.printJSON(out)
}

// note is text for a person only (progress, a table's header): nothing
// under --json.
type note string

func (n note) writeText(w io.Writer) { io.WriteString(w, string(n)) }
func (n note) jsonValue() any        { return nil }

// printJSON prints v as indented JSON with every character that could
// steer a terminal escaped as \uXXXX (booking.EscapeJSON): the output
// stays valid JSON that decodes to the data as stored.
func (c *env) printJSON(v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		c.stderr.Write([]byte("boxoffice: cannot encode the output as JSON\n"))
		return
	}
	c.stdout.Write(append(booking.EscapeJSON(b), '\n'))
}
