// Package escpos writes the few ESC/POS commands a box office needs to
// print tickets and receipts on an Epson TM-series thermal printer or a
// compatible one: initialise, bold, size, alignment, text, feed, cut,
// the printer's native QR code (GS ( k) and the cash drawer's pulse
// (ESC p). It imports only the standard library and knows nothing of
// tickets.
//
// Text is cleaned as it is added: no byte of it can be read by the printer
// as a command, whatever the data said (see Doc.Text).
package escpos

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// The command prefixes.
const (
	ESC = 0x1B
	GS  = 0x1D
	DLE = 0x10
	EOT = 0x04
	LF  = 0x0A
)

// Align is a line's justification (ESC a n).
type Align byte

const (
	Left   Align = 0
	Center Align = 1
	Right  Align = 2
)

// ECLevel is a QR code's error correction (GS ( k, function 169).
type ECLevel byte

const (
	ECLow      ECLevel = 48 // about 7% of the code may be lost
	ECMedium   ECLevel = 49 // 15%
	ECQuartile ECLevel = 50 // 25%
	ECHigh     ECLevel = 51 // 30%
)

// MaxQRData is the most a QR store command carries here: far more than a
// ticket code, and well inside what model 2 holds at any level.
const MaxQRData = 1000

// Doc is a print job being built. The zero value is ready; Bytes is the
// stream to send.
type Doc struct {
	buf bytes.Buffer
	// signs is set once CurrencySigns selected the page with them.
	signs bool
}

// Bytes is the job so far.
func (d *Doc) Bytes() []byte { return d.buf.Bytes() }

// Len is the job's size in bytes.
func (d *Doc) Len() int { return d.buf.Len() }

// Init resets the printer to its power-on modes (ESC @): whatever the
// previous job left set (bold, size, alignment) is gone.
func (d *Doc) Init() *Doc {
	d.buf.Write([]byte{ESC, '@'})
	d.signs = false // the reset selects the printer's own code page again
	return d
}

// Bold turns emphasised printing on or off (ESC E n).
func (d *Doc) Bold(on bool) *Doc {
	d.buf.Write([]byte{ESC, 'E', boolByte(on)})
	return d
}

// Size sets the character width and height multipliers, each 1 to 8
// (GS ! n); out-of-range values are clamped.
func (d *Doc) Size(w, h int) *Doc {
	w, h = clamp(w, 1, 8), clamp(h, 1, 8)
	d.buf.Write([]byte{GS, '!', byte((w-1)<<4 | (h - 1))})
	return d
}

// Align sets the justification of the lines that follow (ESC a n).
func (d *Doc) Align(a Align) *Doc {
	if a > Right {
		a = Left
	}
	d.buf.Write([]byte{ESC, 'a', byte(a)})
	return d
}

// Text adds s as printable text: ASCII letters pass, a few common accented
// letters lose their accent, and everything else — every control byte
// (ESC, GS, DLE, LF…) and every other character — becomes '?' or, for
// controls, nothing. A customer's name can therefore never switch the
// printer into a mode or cut the paper.
func (d *Doc) Text(s string) *Doc {
	for d.signs {
		i := strings.IndexFunc(s, func(r rune) bool { _, ok := pc858[r]; return ok })
		if i < 0 {
			break
		}
		d.buf.WriteString(Printable(s[:i]))
		r, n := utf8.DecodeRuneInString(s[i:])
		d.buf.WriteByte(pc858[r])
		s = s[i+n:]
	}
	d.buf.WriteString(Printable(s))
	return d
}

// CodePage858 is the printer's number of code page PC858 (ESC t n), the
// Latin-1 page of the Epson TM series that has the euro sign.
const CodePage858 = 19

// pc858 are the currency signs Text writes as PC858 draws them once
// CurrencySigns selected it, instead of spelling them out; every other
// character is written as Printable writes it.
var pc858 = map[rune]byte{'€': 0xD5, '£': 0x9C, '¥': 0xBE}

// CurrencySigns selects code page PC858 (ESC t 19), so that Text writes
// the currency signs €, £ and ¥ as signs rather than EUR, GBP and ?. A
// job selects it only where its money needs it (NeedsSigns): the bytes
// of every other job stay plain ASCII.
func (d *Doc) CurrencySigns() *Doc {
	d.buf.Write([]byte{ESC, 't', CodePage858})
	d.signs = true
	return d
}

// NeedsSigns reports whether s holds a currency sign that CurrencySigns
// prints.
func NeedsSigns(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { _, ok := pc858[r]; return ok })
}

// Line adds s as printable text and ends the line (LF).
func (d *Doc) Line(s string) *Doc {
	d.Text(s)
	d.buf.WriteByte(LF)
	return d
}

// Feed prints what is buffered and feeds n lines, 0 to 255 (ESC d n).
func (d *Doc) Feed(n int) *Doc {
	d.buf.Write([]byte{ESC, 'd', byte(clamp(n, 0, 255))})
	return d
}

// Drawer pulses the cash drawer's kick-out connector (ESC p m t1 t2):
// pin 2, on for 50 ms and off for 500 ms, the timing most drawers want.
// A printer without a drawer ignores it.
func (d *Doc) Drawer() *Doc {
	d.buf.Write([]byte{ESC, 'p', 0, 25, 250})
	return d
}

// Cut feeds the paper to the cutter and cuts it, leaving a hinge (GS V
// 66 n, function B partial cut: the ticket stays on the roll until torn
// off, so nothing drops behind the counter).
func (d *Doc) Cut() *Doc {
	d.buf.Write([]byte{GS, 'V', 66, 3})
	return d
}

// QR prints data as the printer's native QR code, model 2, with modules of
// size dots (1 to 16) and error correction ec: four GS ( k functions —
// select the model (165), the module size (167), the error correction
// (169), store the data (180) and print it (181). Data longer than
// MaxQRData is cut there; bytes of data are stored as they are (the
// printer draws them, it does not obey them).
func (d *Doc) QR(data string, size int, ec ECLevel) *Doc {
	if len(data) > MaxQRData {
		data = data[:MaxQRData]
	}
	if ec < ECLow || ec > ECHigh {
		ec = ECMedium
	}
	d.qrFunc('A', '2', 0)                          // fn 165: model 2
	d.qrFunc('C', byte(clamp(size, 1, 16)))        // fn 167: module size
	d.qrFunc('E', byte(ec))                        // fn 169: error correction
	d.qrFunc('P', append([]byte{'0'}, data...)...) // fn 180: store
	d.qrFunc('Q', '0')                             // fn 181: print
	return d
}

// qrFunc writes one GS ( k function of the QR symbol (cn 49): the length
// counts cn, fn and the parameters, low byte first.
func (d *Doc) qrFunc(fn byte, params ...byte) {
	n := len(params) + 2
	d.buf.Write([]byte{GS, '(', 'k', byte(n), byte(n >> 8), '1', fn})
	d.buf.Write(params)
}

// StatusPaper is the real-time request for the paper roll sensor's
// status (DLE EOT 4): the printer answers with one byte at once, even in
// the middle of a job.
var StatusPaper = []byte{DLE, EOT, 4}

// PaperOut reports whether a reply to StatusPaper says the roll is out
// (bits 5 and 6, "paper end").
func PaperOut(status byte) bool { return status&0x60 == 0x60 }

// PaperLow reports whether a reply to StatusPaper says the roll is near
// its end (bits 2 and 3).
func PaperLow(status byte) bool { return status&0x0C == 0x0C }

// Printable is s as Text adds it (see Doc.Text).
func Printable(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			// A control: dropped, never passed on.
		case r < 0x7f:
			b.WriteByte(byte(r))
		case r >= 0x80 && r <= 0x9f:
			// C1 control: dropped.
		default:
			if a, ok := fold[r]; ok {
				b.WriteString(a)
			} else if r != 0xFFFD && !(r >= 0x200B && r <= 0x206F) && r != 0xFEFF {
				b.WriteByte('?')
			}
		}
	}
	return b.String()
}

// fold is how the letters and signs a cinema's data commonly has read in
// the printer's plain ASCII, which every code page shares.
var fold = map[rune]string{
	'á': "a", 'à': "a", 'â': "a", 'ä': "a", 'ã': "a", 'å': "a",
	'é': "e", 'è': "e", 'ê': "e", 'ë': "e",
	'í': "i", 'ì': "i", 'î': "i", 'ï': "i",
	'ó': "o", 'ò': "o", 'ô': "o", 'ö': "o", 'õ': "o", 'ø': "o",
	'ú': "u", 'ù': "u", 'û': "u", 'ü': "u",
	'ç': "c", 'ñ': "n", 'ý': "y", 'ß': "ss",
	'Á': "A", 'À': "A", 'Â': "A", 'Ä': "A", 'Ã': "A", 'Å': "A",
	'É': "E", 'È': "E", 'Ê': "E", 'Ë': "E",
	'Í': "I", 'Ì': "I", 'Î': "I", 'Ï': "I",
	'Ó': "O", 'Ò': "O", 'Ô': "O", 'Ö': "O", 'Õ': "O", 'Ø': "O",
	'Ú': "U", 'Ù': "U", 'Û': "U", 'Ü': "U",
	'Ç': "C", 'Ñ': "N",
	'€': "EUR", '£': "GBP", '–': "-", '—': "-", '‘': "'", '’': "'",
	'“': "\"", '”': "\"", '…': "...", '·': "-", '×': "x",
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func clamp(n, lo, hi int) int { return min(max(n, lo), hi) }
