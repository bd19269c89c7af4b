package tui

import (
	"strings"
	"testing"

	qrcode "github.com/skip2/go-qrcode"

	"boxoffice/booking"
)

// TestRenderQR reads the half-block drawing back into modules and checks
// it is the library's bitmap, quiet zone included: what is drawn is
// exactly the symbol a scanner needs.
func TestRenderQR(t *testing.T) {
	code := booking.SignTicket(testTicketKey, 123456)
	q, err := qrcode.New(code, qrcode.Low)
	if err != nil {
		t.Fatal(err)
	}
	want := q.Bitmap()
	lines := strings.Split(renderQR(code), "\n")
	if len(lines) != (len(want)+1)/2 {
		t.Fatalf("%d lines for %d module rows", len(lines), len(want))
	}
	for y := range want {
		row := []rune(lines[y/2])
		if len(row) != len(want[y]) {
			t.Fatalf("line %d is %d wide, want %d", y/2, len(row), len(want[y]))
		}
		for x, dark := range want[y] {
			r := row[x]
			// Light modules are drawn; dark ones are left blank.
			var light bool
			if y%2 == 0 {
				light = r == '█' || r == '▀'
			} else {
				light = r == '█' || r == '▄'
			}
			if light == dark {
				t.Fatalf("module %d,%d: drawn %q, dark %v", x, y, r, dark)
			}
		}
	}
	// The quiet zone: four light modules round the symbol.
	for y := 0; y < 4; y++ {
		for x := range want[y] {
			if want[y][x] || want[len(want)-1-y][x] || want[x][y] || want[x][len(want)-1-y] {
				t.Fatal("no four-module quiet zone")
			}
		}
	}
}
