// Package escpostest reads an ESC/POS stream back command by command,
// for tests: of the encoder itself, and of whatever a test printer
// received. It knows exactly the commands package escpos writes; any
// other byte below 0x20 is an error, so a control smuggled in with text
// is caught.
package escpostest

import (
	"fmt"
	"strings"

	"boxoffice/escpos"
)

// Cmd is one command of a stream.
type Cmd struct {
	// Name is one of init, codepage, bold, size, align, feed, cut,
	// qr-model, qr-size, qr-ec, qr-store, qr-print, status, drawer, text.
	Name string
	// Arg is the command's one-byte parameter (bold's 0/1, align's n,
	// size's n, feed's lines, the QR size or level, status's n, the
	// drawer's pin).
	Arg byte
	// Text is a text line's characters, without its LF, or the data of a
	// qr-store.
	Text string
}

func (c Cmd) String() string {
	switch c.Name {
	case "text", "qr-store":
		return c.Name + " " + fmt.Sprintf("%q", c.Text)
	case "init", "cut", "qr-print":
		return c.Name
	}
	return fmt.Sprintf("%s %d", c.Name, c.Arg)
}

// Parse reads b into its commands. Text runs up to LF, or up to the next
// command when the stream goes on without one. After a codepage command
// selecting PC858 (escpos.CurrencySigns) a text's currency signs read
// back as €, £ and ¥; every other byte of text must be ASCII.
func Parse(b []byte) ([]Cmd, error) {
	var out []Cmd
	signs := false
	for i := 0; i < len(b); {
		c, n, err := next(b[i:], signs)
		if err != nil {
			return out, fmt.Errorf("at byte %d: %w", i, err)
		}
		switch c.Name {
		case "init":
			signs = false
		case "codepage":
			signs = c.Arg == escpos.CodePage858
		}
		out = append(out, c)
		i += n
	}
	return out, nil
}

// pc858 are the currency signs of code page PC858 escpos writes.
var pc858 = map[byte]rune{0xD5: '€', 0x9C: '£', 0xBE: '¥'}

func next(b []byte, signs bool) (Cmd, int, error) {
	need := func(n int) error {
		if len(b) < n {
			return fmt.Errorf("command % x cut short", b)
		}
		return nil
	}
	switch b[0] {
	case escpos.ESC:
		if err := need(2); err != nil {
			return Cmd{}, 0, err
		}
		switch b[1] {
		case '@':
			return Cmd{Name: "init"}, 2, nil
		case 't':
			if err := need(3); err != nil {
				return Cmd{}, 0, err
			}
			return Cmd{Name: "codepage", Arg: b[2]}, 3, nil
		case 'p':
			if err := need(5); err != nil {
				return Cmd{}, 0, err
			}
			return Cmd{Name: "drawer", Arg: b[2]}, 5, nil
		case 'E', 'a', 'd':
			if err := need(3); err != nil {
				return Cmd{}, 0, err
			}
			return Cmd{Name: map[byte]string{'E': "bold", 'a': "align", 'd': "feed"}[b[1]], Arg: b[2]}, 3, nil
		}
	case escpos.GS:
		if err := need(2); err != nil {
			return Cmd{}, 0, err
		}
		switch b[1] {
		case '!':
			if err := need(3); err != nil {
				return Cmd{}, 0, err
			}
			return Cmd{Name: "size", Arg: b[2]}, 3, nil
		case 'V':
			if err := need(4); err != nil {
				return Cmd{}, 0, err
			}
			if b[2] != 66 {
				return Cmd{}, 0, fmt.Errorf("cut function %d, want 66", b[2])
			}
			return Cmd{Name: "cut", Arg: b[3]}, 4, nil
		case '(':
			return qr(b)
		}
	case escpos.DLE:
		if err := need(3); err != nil {
			return Cmd{}, 0, err
		}
		if b[1] == escpos.EOT {
			return Cmd{Name: "status", Arg: b[2]}, 3, nil
		}
	default:
		if b[0] >= 0x20 && b[0] != 0x7f {
			return text(b, signs)
		}
		if b[0] == escpos.LF {
			return Cmd{Name: "text"}, 1, nil
		}
	}
	return Cmd{}, 0, fmt.Errorf("unknown command % x", b[:min(len(b), 4)])
}

// text reads printable bytes up to an LF (eaten) or a command.
func text(b []byte, signs bool) (Cmd, int, error) {
	var s strings.Builder
	for i, c := range b {
		switch {
		case c == escpos.LF:
			return Cmd{Name: "text", Text: s.String()}, i + 1, nil
		case c < 0x20 || c == 0x7f:
			return Cmd{Name: "text", Text: s.String()}, i, nil
		case c >= 0x80 && signs && pc858[c] != 0:
			s.WriteRune(pc858[c])
			continue
		case c >= 0x80:
			return Cmd{}, 0, fmt.Errorf("byte %#x in text: only ASCII is sent", c)
		}
		s.WriteByte(c)
	}
	return Cmd{Name: "text", Text: s.String()}, len(b), nil
}

// qr reads one GS ( k function of the QR symbol.
func qr(b []byte) (Cmd, int, error) {
	if len(b) < 7 || b[2] != 'k' {
		return Cmd{}, 0, fmt.Errorf("GS ( command % x is not GS ( k", b[:min(len(b), 7)])
	}
	n := int(b[3]) | int(b[4])<<8
	if n < 2 || len(b) < 5+n {
		return Cmd{}, 0, fmt.Errorf("GS ( k length %d beyond the stream", n)
	}
	if b[5] != '1' {
		return Cmd{}, 0, fmt.Errorf("GS ( k symbol %d, want 49 (QR)", b[5])
	}
	params := b[7 : 5+n]
	one := func(name string) (Cmd, int, error) {
		if len(params) != 1 {
			return Cmd{}, 0, fmt.Errorf("%s with %d parameters", name, len(params))
		}
		return Cmd{Name: name, Arg: params[0]}, 5 + n, nil
	}
	switch b[6] {
	case 'A':
		if len(params) != 2 || params[1] != 0 {
			return Cmd{}, 0, fmt.Errorf("qr-model parameters % x", params)
		}
		return Cmd{Name: "qr-model", Arg: params[0]}, 5 + n, nil
	case 'C':
		return one("qr-size")
	case 'E':
		return one("qr-ec")
	case 'P':
		if len(params) < 1 || params[0] != '0' {
			return Cmd{}, 0, fmt.Errorf("qr-store m %v", params)
		}
		return Cmd{Name: "qr-store", Text: string(params[1:])}, 5 + n, nil
	case 'Q':
		if len(params) != 1 || params[0] != '0' {
			return Cmd{}, 0, fmt.Errorf("qr-print m %v", params)
		}
		return Cmd{Name: "qr-print"}, 5 + n, nil
	}
	return Cmd{}, 0, fmt.Errorf("GS ( k function %d", b[6])
}

// Names is the commands' names in order: a quick outline of a stream.
func Names(cmds []Cmd) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.Name
	}
	return out
}

// Texts is the stream's text lines in order.
func Texts(cmds []Cmd) []string {
	var out []string
	for _, c := range cmds {
		if c.Name == "text" {
			out = append(out, c.Text)
		}
	}
	return out
}

// QRData is the data of every QR code the stream stores and prints, in
// order; a stored code that is never printed is not counted.
func QRData(cmds []Cmd) []string {
	var out []string
	stored := ""
	for _, c := range cmds {
		switch c.Name {
		case "qr-store":
			stored = c.Text
		case "qr-print":
			out = append(out, stored)
		}
	}
	return out
}

// Count is how many commands are called name.
func Count(cmds []Cmd, name string) int {
	n := 0
	for _, c := range cmds {
		if c.Name == name {
			n++
		}
	}
	return n
}
