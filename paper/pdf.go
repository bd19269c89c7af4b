package paper

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-pdf/fpdf"
	qrcode "github.com/skip2/go-qrcode"

	"boxoffice/booking"
)

// PDF writes b's printable tickets as a PDF, one A6 page each, with the
// same content as the printed ticket and the QR code as an image.
func (l Layout) PDF(w io.Writer, b *booking.Booking) error {
	ts := Printable(b)
	if len(ts) == 0 {
		return ErrNothingToPrint
	}
	pdf := fpdf.New("P", "mm", "A6", "")
	pdf.SetTitle("Tickets "+booking.CleanLine(b.Number, 20), true)
	pdf.SetCreator("boxoffice", true)
	pdf.SetCreationDate(b.CreatedAt)
	pdf.SetMargins(8, 8, 8)
	pdf.SetAutoPageBreak(false, 0)
	// The core fonts speak cp1252: names with accents survive, anything
	// else prints as a question mark rather than as garbage.
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	for i, t := range ts {
		if err := l.pdfTicket(pdf, tr, b, t, i); err != nil {
			return err
		}
	}
	if err := pdf.Error(); err != nil {
		return booking.Errorf(booking.EInternal, "The PDF could not be made: %s", booking.CleanLine(err.Error(), 80))
	}
	return pdf.Output(w)
}

func (l Layout) pdfTicket(pdf *fpdf.Fpdf, tr func(string) string, b *booking.Booking, t booking.Ticket, i int) error {
	q, err := qrcode.New(t.Code, qrcode.Medium)
	if err != nil {
		return booking.Errorf(booking.EInternal, "The ticket's QR code could not be made.")
	}
	png, err := q.PNG(512)
	if err != nil {
		return booking.Errorf(booking.EInternal, "The ticket's QR code could not be made.")
	}
	sh := b.Show
	pdf.AddPage()
	w, _ := pdf.GetPageSize()
	line := func(size float64, style, s string) {
		pdf.SetFont("Helvetica", style, size)
		pdf.CellFormat(0, size*0.5, tr(booking.CleanLine(s, 60)), "", 1, "C", false, 0, "")
	}
	line(16, "B", l.cinema())
	line(12, "B", sh.Film.Title)
	if r := booking.CleanLine(sh.Film.Rating, 8); r != "" {
		line(9, "", "Rating "+r)
	}
	line(10, "", "Hall "+sh.HallName+" · "+l.when(sh.Starts))
	line(15, "B", SeatText(t.Seat))
	line(10, "", TypeName(t.Type)+"  "+l.money(t.Price))
	line(9, "", "Booking "+b.Number)
	name := fmt.Sprintf("qr-%d", i)
	pdf.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(png))
	size := 60.0
	y := pdf.GetY() + 2
	pdf.ImageOptions(name, (w-size)/2, y, size, size, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	pdf.SetY(y + size + 1)
	pdf.SetFont("Courier", "", 8)
	pdf.MultiCell(0, 3.5, booking.Clean(t.Code), "", "C", false)
	return nil
}

// WritePDF renders b's tickets and writes them to path, which must not
// exist: a ticket file is never overwritten. EInvalid, saying so, when it
// does; EInternal for a directory that cannot be written.
func (l Layout) WritePDF(path string, b *booking.Booking) error {
	var buf bytes.Buffer
	if err := l.PDF(&buf, b); err != nil {
		return err
	}
	// 0600: a ticket's code admits someone, so the file is as good as
	// the ticket until it reaches the customer.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return booking.Errorf(booking.EInvalid, "%s exists already: tickets are never written over a file. Name another.", booking.CleanLine(path, 200))
	}
	if err != nil {
		return booking.Errorf(booking.EInternal, "Cannot write %s: %s", booking.CleanLine(path, 200), shortErr(err))
	}
	_, err = f.Write(buf.Bytes())
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return booking.Errorf(booking.EInternal, "Cannot write %s: %s", booking.CleanLine(path, 200), shortErr(err))
	}
	return nil
}

// PDFName is the file a booking's tickets go to in a directory: the
// booking number, with a counter added when the name is taken.
func PDFName(dir, number string) string {
	base := "tickets-" + safeName(number)
	p := filepath.Join(dir, base+".pdf")
	for i := 2; i < 1000; i++ {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			break
		}
		p = filepath.Join(dir, fmt.Sprintf("%s-%d.pdf", base, i))
	}
	return p
}

// safeName keeps letters, digits and hyphens of s: a booking number is
// made of those, and nothing else belongs in a file name.
func safeName(s string) string {
	var b []byte
	for _, c := range []byte(s) {
		if c == '-' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "booking"
	}
	return string(b)
}

// WritePDFIn writes b's tickets to a new file in dir (made when missing,
// 0700: tickets are as good as money) and returns its path.
func (l Layout) WritePDFIn(dir string, b *booking.Booking) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", booking.Errorf(booking.EInternal, "Cannot make the PDF directory %s: %s", booking.CleanLine(dir, 200), shortErr(err))
	}
	for range 3 {
		p := PDFName(dir, b.Number)
		err := l.WritePDF(p, b)
		if booking.ErrorCode(err) == booking.EInvalid && !errors.Is(err, ErrNothingToPrint) {
			continue // another session took the name between look and write
		}
		return p, err
	}
	return "", booking.Errorf(booking.EInternal, "Cannot find a free file name in %s.", booking.CleanLine(dir, 200))
}
