package tui

import (
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	qrcode "github.com/skip2/go-qrcode"

	"boxoffice/booking"
	"boxoffice/internal/qrscan"
	"boxoffice/tui/qrtext"
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
	lines := strings.Split(qrtext.Render(code), "\n")
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

// TestRenderQR_Scans decodes the drawing as a phone would see the screen:
// the half-block characters become pixels and a QR reader (ZXing's Go
// port) must read the ticket code back.
func TestRenderQR_Scans(t *testing.T) {
	for _, id := range []int64{1, 987654, 1 << 40} {
		code := booking.SignTicket(testTicketKey, id)
		img := qrscan.Image(qrtext.Render(code), 6)
		bmp, err := gozxing.NewBinaryBitmapFromImage(img)
		if err != nil {
			t.Fatal(err)
		}
		res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
		if err != nil {
			t.Fatalf("ticket %d: the drawn QR code does not scan: %v", id, err)
		}
		if res.GetText() != code {
			t.Fatalf("scanned %q, want %q", res.GetText(), code)
		}
	}
}
