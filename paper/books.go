package paper

import (
	"fmt"
	"io"
	"strconv"

	"github.com/go-pdf/fpdf"

	"boxoffice/booking"
	"boxoffice/escpos"
)

// The books on paper: a distributor return as an A4 PDF, and a closed
// day's report on the counter's printer.

// ReturnPDF writes a distributor return as an A4 page (more when the
// week has many shows): the cinema, the film and the week, a line a
// show with a subtotal a day, the week's total, the hire and what is
// owed.
func (l Layout) ReturnPDF(w io.Writer, r *booking.DistributorReturn) error {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetTitle("Distributor return "+booking.CleanLine(r.Film.Title, 60), true)
	pdf.SetCreator("boxoffice", true)
	pdf.SetCreationDate(r.From)
	pdf.SetMargins(15, 15, 15)
	pdf.SetAutoPageBreak(true, 15)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.AddPage()
	text := func(size float64, style, s string) {
		pdf.SetFont("Helvetica", style, size)
		pdf.CellFormat(0, size*0.5, tr(booking.CleanLine(s, 100)), "", 1, "L", false, 0, "")
	}
	text(16, "B", l.cinema())
	if st := l.Settings; st != nil {
		for _, a := range st.Address {
			text(9, "", a)
		}
		if st.TaxID != "" {
			text(9, "", l.taxLabel()+" no. "+st.TaxID)
		}
	}
	pdf.Ln(4)
	text(14, "B", "Distributor return: "+r.Film.Title)
	week := "before the film's run"
	if r.RunWeek > 0 {
		week = "week " + strconv.Itoa(r.RunWeek) + " of the run"
	}
	f := l.format()
	text(10, "", fmt.Sprintf("%s to %s, %s", f.Date(r.From), f.Date(r.To), week))
	pdf.Ln(3)
	cols := []float64{38, 34, 16, 16, 16, 20, 20, 20}
	row := func(style string, cells ...string) {
		pdf.SetFont("Helvetica", style, 9)
		for i, c := range cells {
			align := "R"
			if i < 2 {
				align = "L"
			}
			pdf.CellFormat(cols[i], 6, tr(booking.CleanLine(c, 40)), "B", 0, align, false, 0, "")
		}
		pdf.Ln(-1)
	}
	row("B", "Show", "Hall", "Paid", "Comps", "House", "Gross", l.taxLabel(), "Net")
	figures := func(x booking.ReturnRow) []string {
		return []string{strconv.Itoa(x.Paid), strconv.Itoa(x.Comps), strconv.Itoa(x.House), f.Amount(x.Gross), f.Amount(x.Tax), f.Amount(x.Net)}
	}
	for _, d := range r.Days {
		for _, s := range d.Shows {
			row("", append([]string{f.Date(s.Starts) + " " + f.Time(s.Starts), s.Hall}, figures(s)...)...)
		}
		row("I", append([]string{d.Day.Format("Mon") + " " + f.Date(d.Day), "day"}, figures(d.Total)...)...)
	}
	row("B", append([]string{"Week", fmt.Sprintf("%d admissions", r.Total.Admissions())}, figures(r.Total)...)...)
	pdf.Ln(4)
	if r.HireSet {
		text(11, "B", fmt.Sprintf("Film hire %s of net %s: %s owed", f.Rate(r.Hire), l.money(r.Total.Net), l.money(r.Owed)))
	} else {
		text(11, "B", "No film hire agreed for this film (boxoffice film hire).")
	}
	text(8, "", "Comps are tickets sold at no charge and house seats held back; both count as admissions at no money.")
	if err := pdf.Error(); err != nil {
		return booking.Errorf(booking.EInternal, "The PDF could not be made: %s", booking.CleanLine(err.Error(), 80))
	}
	return pdf.Output(w)
}

// DayReportJob is a closed day's report as a print job: takings by
// method, the floats, the count and the cash to bank, the variance, the
// tax by rate, and each shift.
func (l Layout) DayReportJob(r *booking.DayReport) []byte {
	var d escpos.Doc
	l.begin(&d)
	l.head(&d, "DAY CLOSE")
	f := l.format()
	d.Align(escpos.Left).Line(clip(f.Date(r.Day), Width))
	d.Line(rule())
	for _, m := range r.Methods {
		d.Line(l.row(fmt.Sprintf("%s sales (%d)", m.Method, m.SaleN), l.money(m.Sales)))
		d.Line(l.row(fmt.Sprintf("%s refunds (%d)", m.Method, m.RefundN), l.money(-m.Refunds)))
	}
	d.Bold(true).Line(l.row("Takings", l.money(r.Total().Net))).Bold(false)
	d.Line(rule())
	d.Line(l.row("Floats", l.money(r.Floats)))
	d.Line(l.row("Counted", l.money(r.Counted)))
	d.Bold(true).Line(l.row("Cash to bank", l.money(r.CashToBank))).Bold(false)
	d.Line(l.row("Variance", l.money(r.Variance)))
	if taxed := booking.Taxed(r.Tax); len(taxed) > 0 {
		d.Line(rule())
		l.taxLines(&d, taxed)
	}
	d.Line(rule())
	for _, s := range r.Shifts {
		d.Line(l.row(clip(fmt.Sprintf("#%d %s", s.ID, s.Staff), 26), l.money(s.Variance)))
	}
	d.Line(clip("Closed by "+r.ClosedBy+" "+l.when(r.ClosedAt), Width))
	d.Feed(3).Cut()
	return d.Bytes()
}
