package booking

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// A report as a sheet: named columns, rows of cells and a totals row. It
// is the one shape of a report that leaves the program — the command
// line's --csv and --json and the reports screen's CSV export all write
// it — so a spreadsheet gets the same columns whichever way it was made.

// ReportSheet is a report as rows of cells. A cell is a string, an int, a
// Money or a float64 (a percentage); nil is empty.
type ReportSheet struct {
	Report   string // "takings", "refunds", …
	From, To time.Time
	By       string // what it adds up by, "" for one way only
	Columns  []SheetColumn
	Rows     [][]any
	Total    map[string]any // column key -> total
}

// SheetColumn is one column: its key (the CSV's header and JSON's name)
// and its header for a person.
type SheetColumn struct{ Key, Head string }

// sheetTime is how a sheet writes a time: sortable, to the minute.
const sheetTime = "2006-01-02 15:04"

func newSheet(report string, from, to time.Time, by string, cols ...SheetColumn) *ReportSheet {
	return &ReportSheet{Report: report, From: from, To: to, By: by, Columns: cols, Total: map[string]any{}}
}

// SheetCell is a cell as text: money as 12.50, every string cleaned of
// control characters.
func SheetCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return CleanLine(x, 200)
	case Money:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// CSVText keeps a text cell of a CSV file from being run as a formula by
// the spreadsheet that opens it: a film titled "=HYPERLINK(…)" or a
// customer "@SUM(…)" starts with a quote instead, which spreadsheets show
// as the text itself. Figures never pass here, so "-5.00" stays a number.
func CSVText(s string) string {
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}

// Keys are the columns' keys: the CSV's header row.
func (t *ReportSheet) Keys() []string {
	out := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		out[i] = col.Key
	}
	return out
}

// TotalRow is the totals as a row: "total" in the first column.
func (t *ReportSheet) TotalRow() []string {
	out := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		out[i] = SheetCell(t.Total[col.Key])
	}
	out[0] = "total"
	return out
}

// WriteCSV writes the header row of keys, one row a line and a last row
// of totals whose first cell is "total".
func (t *ReportSheet) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(t.Keys())
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = SheetCell(v)
			if _, text := v.(string); text {
				cells[i] = CSVText(cells[i])
			}
		}
		cw.Write(cells)
	}
	cw.Write(t.TotalRow())
	cw.Flush()
	return cw.Error()
}

// FileName is the name a sheet is saved under, made of letters, digits
// and hyphens only: "takings-by-day-2026-11-01-to-2026-11-07.csv".
func (t *ReportSheet) FileName() string {
	name := t.Report
	if t.By != "" {
		name += "-by-" + t.By
	}
	name += "-" + t.From.Format(time.DateOnly)
	if !t.To.Equal(t.From) {
		name += "-to-" + t.To.Format(time.DateOnly)
	}
	var b strings.Builder
	for _, c := range name {
		if c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' {
			b.WriteRune(c)
		}
	}
	return b.String() + ".csv"
}

// The sheets of the reports, one builder a report, the columns in the
// order the CSV and the text print them. Each returns nil for nil.

// TakingsSheet is the takings by their key.
func TakingsSheet(rep *TakingsReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("takings", rep.From, rep.To, string(rep.By),
		SheetColumn{"key", string(rep.By)}, SheetColumn{"label", "label"}, SheetColumn{"sales", "sales"},
		SheetColumn{"refunds", "refunds"}, SheetColumn{"net", "net"}, SheetColumn{"tickets", "tickets"}, SheetColumn{"refunded", "refunded"})
	for _, r := range rep.Rows {
		t.Rows = append(t.Rows, []any{r.Key, r.Label, r.Sales, r.Refunds, r.Net, r.Tickets, r.Refunded})
	}
	tot := rep.Total
	t.Total = map[string]any{"sales": tot.Sales, "refunds": tot.Refunds, "net": tot.Net, "tickets": tot.Tickets, "refunded": tot.Refunded}
	return t
}

// ItemTakingsSheet is the items part of the takings, by category.
func ItemTakingsSheet(rep *ItemTakingsReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("items", rep.From, rep.To, "category",
		SheetColumn{"category", "category"}, SheetColumn{"sold", "sold"}, SheetColumn{"refunded", "refunded"},
		SheetColumn{"sales", "sales"}, SheetColumn{"refunds", "refunds"}, SheetColumn{"net", "net"})
	for _, r := range rep.Rows {
		t.Rows = append(t.Rows, []any{CategoryName(r.Category), r.Sold, r.Refunded, r.Sales, r.Refunds, r.Net()})
	}
	tot := rep.Total
	t.Total = map[string]any{"sold": tot.Sold, "refunded": tot.Refunded, "sales": tot.Sales, "refunds": tot.Refunds, "net": tot.Net()}
	return t
}

// RefundsSheet is every refund paid out.
func RefundsSheet(rep *RefundsReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("refunds", rep.From, rep.To, "",
		SheetColumn{"at", "at"}, SheetColumn{"booking", "booking"}, SheetColumn{"show", "show"}, SheetColumn{"starts", "starts"},
		SheetColumn{"seat", "seat"}, SheetColumn{"amount", "amount"}, SheetColumn{"method", "method"}, SheetColumn{"by", "by"},
		SheetColumn{"approved_by", "approved by"}, SheetColumn{"reason", "reason"})
	for _, r := range rep.Rows {
		seat := r.Seat
		if seat == "" {
			seat = "whole booking"
		}
		t.Rows = append(t.Rows, []any{r.At.Format(sheetTime), r.Booking, r.Show, r.Starts.Format(sheetTime), seat, r.Amount,
			string(r.Method), r.By, r.ApprovedBy, r.Reason})
	}
	t.Total["amount"] = rep.Total
	return t
}

// OccupancySheet is the seats sold per show or per hall.
func OccupancySheet(rep *OccupancyReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	cols := []SheetColumn{{"key", string(rep.By)}, {"label", "label"}, {"hall", "hall"}, {"starts", "starts"},
		{"shows", "shows"}, {"capacity", "capacity"}, {"sold", "sold"}, {"percent", "percent"}}
	if rep.By == PerHall {
		cols = append(cols[:2], cols[4:]...)
	}
	t := newSheet("occupancy", rep.From, rep.To, string(rep.By), cols...)
	for _, r := range rep.Rows {
		row := []any{r.Key, r.Label, r.Hall, r.Starts.Format(sheetTime), r.Shows, r.Capacity, r.Sold, r.Percent()}
		if rep.By == PerHall {
			row = append(row[:2], row[4:]...)
		}
		t.Rows = append(t.Rows, row)
	}
	tot := rep.Total
	t.Total = map[string]any{"shows": tot.Shows, "capacity": tot.Capacity, "sold": tot.Sold, "percent": tot.Percent()}
	return t
}

// ShiftsSheet is the shifts with their cash and variance.
func ShiftsSheet(rep *ShiftsReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("shifts", rep.From, rep.To, "",
		SheetColumn{"id", "shift"}, SheetColumn{"staff", "staff"}, SheetColumn{"terminal", "terminal"}, SheetColumn{"status", "status"},
		SheetColumn{"opened", "opened"}, SheetColumn{"closed", "closed"}, SheetColumn{"float", "float"},
		SheetColumn{"cash_sales", "cash sales"}, SheetColumn{"cash_refunds", "cash refunds"}, SheetColumn{"card", "card"},
		SheetColumn{"expected", "expected"}, SheetColumn{"counted", "counted"}, SheetColumn{"variance", "variance"})
	for _, r := range rep.Rows {
		var closed, counted, variance any
		if r.ClosedAt != nil {
			closed = r.ClosedAt.Format(sheetTime)
		}
		if r.Counted != nil {
			counted, variance = *r.Counted, *r.Variance
		}
		t.Rows = append(t.Rows, []any{r.ID, r.Staff, r.Terminal, r.Status, r.OpenedAt.Format(sheetTime), closed, r.Float,
			r.CashSales, r.CashRefunds, r.Card, r.Expected, counted, variance})
	}
	tot := rep.Total
	t.Total = map[string]any{"float": tot.Float, "cash_sales": tot.CashSales, "cash_refunds": tot.CashRefunds, "card": tot.Card,
		"expected": tot.Expected, "counted": tot.Counted, "variance": tot.Variance}
	return t
}

// NoShowsSheet is the bookings nobody came for.
func NoShowsSheet(rep *NoShowsReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("no-shows", rep.From, rep.To, "",
		SheetColumn{"booking", "booking"}, SheetColumn{"show", "show"}, SheetColumn{"hall", "hall"}, SheetColumn{"starts", "starts"},
		SheetColumn{"customer", "customer"}, SheetColumn{"tickets", "tickets"}, SheetColumn{"total", "total"})
	for _, r := range rep.Rows {
		t.Rows = append(t.Rows, []any{r.Booking, r.Show, r.Hall, r.Starts.Format(sheetTime), r.Customer, r.Tickets, r.Total})
	}
	t.Total["tickets"], t.Total["total"] = rep.Tickets, rep.Total
	return t
}

// ReservationsSheet is the reservations taken, paid, lapsed and still
// reserved, per source.
func ReservationsSheet(rep *ReservationsReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("reservations", rep.Range.From, rep.Range.To, "",
		SheetColumn{"source", "source"}, SheetColumn{"taken", "taken"}, SheetColumn{"paid", "paid"},
		SheetColumn{"lapsed", "lapsed"}, SheetColumn{"reserved", "reserved"})
	for _, r := range rep.Rows {
		t.Rows = append(t.Rows, []any{string(r.Source), r.Taken, r.Paid, r.Lapsed, r.Reserved})
	}
	tot := rep.Total
	t.Total = map[string]any{"taken": tot.Taken, "paid": tot.Paid, "lapsed": tot.Lapsed, "reserved": tot.Reserved}
	return t
}

// TaxSheet is the tax of a range by rate.
func TaxSheet(rep *TaxReport) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("tax", rep.From, rep.To, "rate",
		SheetColumn{"rate", "rate %"}, SheetColumn{"sold", "sold"}, SheetColumn{"back", "back"}, SheetColumn{"sales", "sales"},
		SheetColumn{"returns", "returns"}, SheetColumn{"gross", "gross"}, SheetColumn{"tax", "tax"}, SheetColumn{"net", "net"})
	for _, r := range rep.Rows {
		t.Rows = append(t.Rows, []any{r.Rate.Percent(), r.Sold, r.Back, r.Sales, r.Returns, r.Gross, r.Tax, r.Net})
	}
	tot := rep.Total
	t.Total = map[string]any{"sold": tot.Sold, "back": tot.Back, "sales": tot.Sales, "returns": tot.Returns, "gross": tot.Gross, "tax": tot.Tax, "net": tot.Net}
	return t
}
