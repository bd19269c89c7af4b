package cli

import (
	"time"

	"boxoffice/booking"
)

// The reports as tables: one builder a report, the columns in the order
// the CSV and the text print them.

const reportTime = "2006-01-02 15:04"

func newTable(report string, from, to time.Time, by string, cols ...reportColumn) *reportTable {
	return &reportTable{report: report, from: from, to: to, by: by, columns: cols, total: map[string]any{}}
}

func takingsTable(rep *booking.TakingsReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := newTable("takings", rep.From, rep.To, string(rep.By),
		reportColumn{"key", string(rep.By)}, reportColumn{"label", "label"}, reportColumn{"sales", "sales"},
		reportColumn{"refunds", "refunds"}, reportColumn{"net", "net"}, reportColumn{"tickets", "tickets"}, reportColumn{"refunded", "refunded"})
	for _, r := range rep.Rows {
		t.rows = append(t.rows, []any{r.Key, r.Label, r.Sales, r.Refunds, r.Net, r.Tickets, r.Refunded})
	}
	tot := rep.Total
	t.total = map[string]any{"sales": tot.Sales, "refunds": tot.Refunds, "net": tot.Net, "tickets": tot.Tickets, "refunded": tot.Refunded}
	return t
}

func refundsTable(rep *booking.RefundsReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := newTable("refunds", rep.From, rep.To, "",
		reportColumn{"at", "at"}, reportColumn{"booking", "booking"}, reportColumn{"show", "show"}, reportColumn{"starts", "starts"},
		reportColumn{"seat", "seat"}, reportColumn{"amount", "amount"}, reportColumn{"method", "method"}, reportColumn{"by", "by"},
		reportColumn{"approved_by", "approved by"}, reportColumn{"reason", "reason"})
	for _, r := range rep.Rows {
		seat := r.Seat
		if seat == "" {
			seat = "whole booking"
		}
		t.rows = append(t.rows, []any{r.At.Format(reportTime), r.Booking, r.Show, r.Starts.Format(reportTime), seat, r.Amount,
			string(r.Method), r.By, r.ApprovedBy, r.Reason})
	}
	t.total["amount"] = rep.Total
	return t
}

func occupancyTable(rep *booking.OccupancyReport) *reportTable {
	if rep == nil {
		return nil
	}
	cols := []reportColumn{{"key", string(rep.By)}, {"label", "label"}, {"hall", "hall"}, {"starts", "starts"},
		{"shows", "shows"}, {"capacity", "capacity"}, {"sold", "sold"}, {"percent", "percent"}}
	if rep.By == booking.PerHall {
		cols = append(cols[:2], cols[4:]...)
	}
	t := newTable("occupancy", rep.From, rep.To, string(rep.By), cols...)
	for _, r := range rep.Rows {
		row := []any{r.Key, r.Label, r.Hall, r.Starts.Format(reportTime), r.Shows, r.Capacity, r.Sold, r.Percent()}
		if rep.By == booking.PerHall {
			row = append(row[:2], row[4:]...)
		}
		t.rows = append(t.rows, row)
	}
	tot := rep.Total
	t.total = map[string]any{"shows": tot.Shows, "capacity": tot.Capacity, "sold": tot.Sold, "percent": tot.Percent()}
	return t
}

func shiftsTable(rep *booking.ShiftsReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := newTable("shifts", rep.From, rep.To, "",
		reportColumn{"id", "shift"}, reportColumn{"staff", "staff"}, reportColumn{"terminal", "terminal"}, reportColumn{"status", "status"},
		reportColumn{"opened", "opened"}, reportColumn{"closed", "closed"}, reportColumn{"float", "float"},
		reportColumn{"cash_sales", "cash sales"}, reportColumn{"cash_refunds", "cash refunds"}, reportColumn{"card", "card"},
		reportColumn{"expected", "expected"}, reportColumn{"counted", "counted"}, reportColumn{"variance", "variance"})
	for _, r := range rep.Rows {
		var closed, counted, variance any
		if r.ClosedAt != nil {
			closed = r.ClosedAt.Format(reportTime)
		}
		if r.Counted != nil {
			counted, variance = *r.Counted, *r.Variance
		}
		t.rows = append(t.rows, []any{r.ID, r.Staff, r.Terminal, r.Status, r.OpenedAt.Format(reportTime), closed, r.Float,
			r.CashSales, r.CashRefunds, r.Card, r.Expected, counted, variance})
	}
	tot := rep.Total
	t.total = map[string]any{"float": tot.Float, "cash_sales": tot.CashSales, "cash_refunds": tot.CashRefunds, "card": tot.Card,
		"expected": tot.Expected, "counted": tot.Counted, "variance": tot.Variance}
	return t
}

func noShowsTable(rep *booking.NoShowsReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := newTable("no-shows", rep.From, rep.To, "",
		reportColumn{"booking", "booking"}, reportColumn{"show", "show"}, reportColumn{"hall", "hall"}, reportColumn{"starts", "starts"},
		reportColumn{"customer", "customer"}, reportColumn{"tickets", "tickets"}, reportColumn{"total", "total"})
	for _, r := range rep.Rows {
		t.rows = append(t.rows, []any{r.Booking, r.Show, r.Hall, r.Starts.Format(reportTime), r.Customer, r.Tickets, r.Total})
	}
	t.total["tickets"], t.total["total"] = rep.Tickets, rep.Total
	return t
}
