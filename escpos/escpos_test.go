package escpos_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"boxoffice/escpos"
	"boxoffice/escpos/escpostest"
)

// TestDoc_Commands pins every command the encoder writes to the bytes of
// the ESC/POS reference.
func TestDoc_Commands(t *testing.T) {
	tests := []struct {
		name string
		do   func(d *escpos.Doc)
		want []byte
	}{
		{"Init", func(d *escpos.Doc) { d.Init() }, []byte{0x1B, 0x40}},
		{"BoldOn", func(d *escpos.Doc) { d.Bold(true) }, []byte{0x1B, 0x45, 1}},
		{"BoldOff", func(d *escpos.Doc) { d.Bold(false) }, []byte{0x1B, 0x45, 0}},
		{"SizeNormal", func(d *escpos.Doc) { d.Size(1, 1) }, []byte{0x1D, 0x21, 0x00}},
		{"SizeDouble", func(d *escpos.Doc) { d.Size(2, 2) }, []byte{0x1D, 0x21, 0x11}},
		{"SizeWideTall", func(d *escpos.Doc) { d.Size(3, 2) }, []byte{0x1D, 0x21, 0x21}},
		{"SizeClamped", func(d *escpos.Doc) { d.Size(0, 99) }, []byte{0x1D, 0x21, 0x07}},
		{"AlignLeft", func(d *escpos.Doc) { d.Align(escpos.Left) }, []byte{0x1B, 0x61, 0}},
		{"AlignCenter", func(d *escpos.Doc) { d.Align(escpos.Center) }, []byte{0x1B, 0x61, 1}},
		{"AlignRight", func(d *escpos.Doc) { d.Align(escpos.Right) }, []byte{0x1B, 0x61, 2}},
		{"AlignUnknownIsLeft", func(d *escpos.Doc) { d.Align(7) }, []byte{0x1B, 0x61, 0}},
		{"Feed", func(d *escpos.Doc) { d.Feed(3) }, []byte{0x1B, 0x64, 3}},
		{"FeedClamped", func(d *escpos.Doc) { d.Feed(300) }, []byte{0x1B, 0x64, 255}},
		{"Cut", func(d *escpos.Doc) { d.Cut() }, []byte{0x1D, 0x56, 66, 3}},
		{"Line", func(d *escpos.Doc) { d.Line("Row G seat 7") }, append([]byte("Row G seat 7"), 0x0A)},
		{"Text", func(d *escpos.Doc) { d.Text("abc") }, []byte("abc")},
		{"QR", func(d *escpos.Doc) { d.QR("AB12", 6, escpos.ECMedium) }, []byte{
			0x1D, 0x28, 0x6B, 0x04, 0x00, 0x31, 0x41, 0x32, 0x00, // model 2
			0x1D, 0x28, 0x6B, 0x03, 0x00, 0x31, 0x43, 0x06, // module size 6
			0x1D, 0x28, 0x6B, 0x03, 0x00, 0x31, 0x45, 0x31, // error correction M
			0x1D, 0x28, 0x6B, 0x07, 0x00, 0x31, 0x50, 0x30, 'A', 'B', '1', '2', // store
			0x1D, 0x28, 0x6B, 0x03, 0x00, 0x31, 0x51, 0x30, // print
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d escpos.Doc
			tt.do(&d)
			if !bytes.Equal(d.Bytes(), tt.want) {
				t.Fatalf("bytes\n got % x\nwant % x", d.Bytes(), tt.want)
			}
		})
	}
}

// TestDoc_QRLongData checks the store length's high byte: data past 252
// bytes needs pH.
func TestDoc_QRLongData(t *testing.T) {
	data := strings.Repeat("X", 300)
	var d escpos.Doc
	d.QR(data, 4, escpos.ECLow)
	cmds, err := escpostest.Parse(d.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := escpostest.QRData(cmds); len(got) != 1 || got[0] != data {
		t.Fatalf("QR data = %q", got)
	}
	store := []byte{0x1D, 0x28, 0x6B, byte(303 & 0xff), byte(303 >> 8), 0x31, 0x50, 0x30}
	if !bytes.Contains(d.Bytes(), store) {
		t.Fatalf("no store header % x in % x", store, d.Bytes()[:40])
	}
}

// TestDoc_TextCannotCommand feeds text full of controls: none of them
// reaches the stream, so the parser sees one text line and nothing else.
func TestDoc_TextCannotCommand(t *testing.T) {
	evil := "Ann\x1b@\x1dV\x42\x00\x10\x04\x04\n\r\x0c\u009b2J\u202eEve\x7f\ufffd"
	var d escpos.Doc
	d.Line(evil)
	cmds, err := escpostest.Parse(d.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 1 || cmds[0].Name != "text" {
		t.Fatalf("commands = %v, want one text line", cmds)
	}
	if got := cmds[0].Text; got != "Ann@VB2JEve" {
		t.Fatalf("text = %q", got)
	}
	for _, c := range d.Bytes()[:d.Len()-1] {
		if c < 0x20 || c >= 0x7f {
			t.Fatalf("byte %#x reached the stream", c)
		}
	}
}

// TestDoc_CurrencySigns: once PC858 is selected the currency signs are
// its bytes, everything else stays as Printable writes it (controls
// dropped), and a reset goes back to spelling them out.
func TestDoc_CurrencySigns(t *testing.T) {
	var d escpos.Doc
	d.Line("12,50 €").CurrencySigns().Line("12,50 € £3 ¥9 Amélie\x1b@").Init().Line("€")
	cmds, err := escpostest.Parse(d.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := escpostest.Texts(cmds); !slices.Equal(got, []string{"12,50 EUR", "12,50 € £3 ¥9 Amelie@", "EUR"}) {
		t.Fatalf("texts %q", got)
	}
	if !bytes.Contains(d.Bytes(), []byte{0x1B, 't', 19, '1', '2', ',', '5', '0', ' ', 0xD5}) {
		t.Fatalf("no ESC t 19 and a PC858 euro in % x", d.Bytes())
	}
	if !escpos.NeedsSigns("€") || escpos.NeedsSigns("$") {
		t.Fatal("NeedsSigns")
	}
}

// TestPrintable folds accents and replaces what plain ASCII lacks.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"Amélie":     "Amelie",
		"Straße":     "Strasse",
		"12,50 €":    "12,50 EUR",
		"千と千尋":       "????",
		"tab\there":  "tab here",
		"zero\u200b": "zero",
	} {
		if got := escpos.Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPaperStatus reads the DLE EOT 4 reply bits.
func TestPaperStatus(t *testing.T) {
	if !bytes.Equal(escpos.StatusPaper, []byte{0x10, 0x04, 0x04}) {
		t.Fatalf("StatusPaper = % x", escpos.StatusPaper)
	}
	if escpos.PaperOut(0x12) || escpos.PaperLow(0x12) {
		t.Fatal("0x12 (paper present) read as out or low")
	}
	if !escpos.PaperOut(0x72) || !escpos.PaperLow(0x1E) {
		t.Fatal("paper end bits not read")
	}
}

// TestParse_Errors makes sure the parser refuses what the encoder never
// writes, so a test reading a stream back cannot pass on garbage.
func TestParse_Errors(t *testing.T) {
	for name, b := range map[string][]byte{
		"ESC cut short":   {0x1B},
		"unknown ESC":     {0x1B, 'Z', 0},
		"bare control":    {0x07},
		"GS k too long":   {0x1D, 0x28, 0x6B, 0x40, 0x00, 0x31, 0x50, 0x30},
		"not QR":          {0x1D, 0x28, 0x6B, 0x03, 0x00, 0x30, 0x43, 0x06},
		"cut other":       {0x1D, 0x56, 0x00, 0x00},
		"high byte text":  {'a', 0xC3, 0xA9},
		"unknown QR func": {0x1D, 0x28, 0x6B, 0x03, 0x00, 0x31, 0x5A, 0x30},
	} {
		if _, err := escpostest.Parse(b); err == nil {
			t.Errorf("%s: % x parsed", name, b)
		}
	}
}

// TestParse_RoundTrip reads a whole small job back in order.
func TestParse_RoundTrip(t *testing.T) {
	var d escpos.Doc
	d.Init().Align(escpos.Center).Bold(true).Size(2, 2).Line("FILM").Bold(false).Size(1, 1).
		QR("CODE", 6, escpos.ECMedium).Line("CODE").Feed(2).Cut()
	cmds, err := escpostest.Parse(d.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := "init align bold size text bold size qr-model qr-size qr-ec qr-store qr-print text feed cut"
	if got := strings.Join(escpostest.Names(cmds), " "); got != want {
		t.Fatalf("commands\n got %s\nwant %s", got, want)
	}
}
