// Package qrtext draws a QR code with text characters, for the screens
// that show a ticket's or a booking's code: the counter and the kiosk.
package qrtext

import (
	"strings"

	qrcode "github.com/skip2/go-qrcode"

	"boxoffice/booking"
)

// Render draws code as a QR code in half-block characters, two module
// rows per line, with the standard four-module quiet zone. Light modules
// are drawn as blocks: on the usual dark terminal that gives dark modules
// on a light ground, which is what scanners expect; the QR style also sets
// black on white explicitly where colour is available.
func Render(code string) string {
	q, err := qrcode.New(code, qrcode.Low)
	if err != nil {
		return "(no QR: " + booking.Clean(err.Error()) + ")"
	}
	bm := q.Bitmap() // includes the quiet zone
	var b strings.Builder
	for y := 0; y < len(bm); y += 2 {
		for x := range bm[y] {
			top := !bm[y][x]
			bottom := y+1 < len(bm) && !bm[y+1][x]
			if y+1 >= len(bm) {
				bottom = true
			}
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteString(" ")
			}
		}
		if y+2 < len(bm) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
