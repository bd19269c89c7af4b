package tui

import (
	"fmt"
	"strconv"

	"boxoffice/booking"
)

// The reports as the screen's tables, built in the command that read
// them: every string from the store is cleaned here, before it is drawn.

const reportStamp = "2 Jan 15:04"

func reportMoney(m booking.Money) string { return m.String() }

func reportCount(n int) string { return strconv.Itoa(n) }

func takingsTable(rep *booking.TakingsReport) *reportTable {
	if rep == nil {
		return nil
	}
	head := map[booking.TakingsBy]string{booking.ByDay: "Day", booking.ByFilm: "Film", booking.ByShow: "Show", booking.ByMethod: "Method", booking.ByClerk: "Clerk"}[rep.By]
	t := &reportTable{head: []string{head, "Sales", "Refunds", "Net", "Tickets", "Refunded"}, empty: "No money was taken in these days.", cut: []int{0}}
	for _, r := range rep.Rows {
		t.rows = append(t.rows, []string{booking.CleanLine(r.Label, 60), reportMoney(r.Sales), reportMoney(r.Refunds), reportMoney(r.Net), reportCount(r.Tickets), reportCount(r.Refunded)})
	}
	tot := rep.Total
	t.total = []string{"Total", reportMoney(tot.Sales), reportMoney(tot.Refunds), reportMoney(tot.Net), reportCount(tot.Tickets), reportCount(tot.Refunded)}
	return t
}

func occupancyTable(rep *booking.OccupancyReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := &reportTable{empty: "No show starts in these days.", cut: []int{0, 1}}
	perHall := rep.By == booking.PerHall
	if perHall {
		t.head = []string{"Hall", "Shows", "Sold", "Seats", "Occupancy"}
	} else {
		t.head = []string{"Show", "Hall", "Starts", "Sold", "Seats", "Occupancy"}
	}
	for _, r := range rep.Rows {
		row := []string{booking.CleanLine(r.Label, 40)}
		if perHall {
			row = append(row, reportCount(r.Shows))
		} else {
			row = append(row, booking.CleanLine(r.Hall, 20), r.Starts.Format(reportStamp))
		}
		t.rows = append(t.rows, append(row, reportCount(r.Sold), reportCount(r.Capacity), ""))
		t.bars = append(t.bars, r.Percent())
	}
	tot := rep.Total
	if perHall {
		t.total = []string{"Total", reportCount(tot.Shows), reportCount(tot.Sold), reportCount(tot.Capacity), ""}
	} else {
		t.total = []string{"Total", plural(tot.Shows, "show", "shows"), "", reportCount(tot.Sold), reportCount(tot.Capacity), ""}
	}
	t.totalBar = tot.Percent()
	return t
}

func refundsTable(rep *booking.RefundsReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := &reportTable{head: []string{"When", "Booking", "Seat", "Amount", "Method", "By", "Approved by", "Reason"}, empty: "No refund was paid out in these days.", cut: []int{5, 6, 7}}
	for _, r := range rep.Rows {
		seat := booking.CleanLine(r.Seat, 8)
		if seat == "" {
			seat = "all"
		}
		t.rows = append(t.rows, []string{r.At.Format(reportStamp), booking.CleanLine(r.Booking, 14), seat, reportMoney(r.Amount),
			string(r.Method), booking.CleanLine(r.By, 16), booking.CleanLine(r.ApprovedBy, 16), booking.CleanLine(r.Reason, 40)})
	}
	t.total = []string{"Total", plural(rep.Count, "refund", "refunds"), "", reportMoney(rep.Total), "", "", "", ""}
	return t
}

func shiftsTable(rep *booking.ShiftsReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := &reportTable{head: []string{"Staff", "Opened", "Status", "Float", "Expected", "Counted", "Variance"}, empty: "No shift was opened in these days.", cut: []int{0}}
	for _, r := range rep.Rows {
		counted, variance := "", ""
		if r.Counted != nil {
			counted, variance = reportMoney(*r.Counted), reportMoney(*r.Variance)
		}
		t.rows = append(t.rows, []string{booking.CleanLine(r.Staff, 16), r.OpenedAt.Format(reportStamp), r.Status, reportMoney(r.Float),
			reportMoney(r.Expected), counted, variance})
	}
	tot := rep.Total
	t.total = []string{"Total", plural(tot.Shifts, "shift", "shifts"), fmt.Sprintf("%d open", tot.Open), reportMoney(tot.Float),
		reportMoney(tot.Expected), reportMoney(tot.Counted), reportMoney(tot.Variance)}
	return t
}

func noShowsTable(rep *booking.NoShowsReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := &reportTable{head: []string{"Booking", "Show", "Starts", "Customer", "Tickets", "Total"}, empty: "Nobody missed a show in these days.", cut: []int{1, 3}}
	for _, r := range rep.Rows {
		t.rows = append(t.rows, []string{booking.CleanLine(r.Booking, 14), booking.CleanLine(r.Show, 30), r.Starts.Format(reportStamp),
			booking.CleanLine(r.Customer, 24), reportCount(r.Tickets), reportMoney(r.Total)})
	}
	t.total = []string{"Total", plural(rep.Count, "booking", "bookings"), "", "", reportCount(rep.Tickets), reportMoney(rep.Total)}
	return t
}

func reservationsTable(rep *booking.ReservationsReport) *reportTable {
	if rep == nil {
		return nil
	}
	t := &reportTable{head: []string{"Taken at", "Reservations", "Paid", "Lapsed", "Still reserved"}, empty: "Nobody reserved seats in these days."}
	for _, r := range rep.Rows {
		t.rows = append(t.rows, []string{"the " + string(r.Source), reportCount(r.Taken), reportCount(r.Paid), reportCount(r.Lapsed), reportCount(r.Reserved)})
	}
	tot := rep.Total
	t.total = []string{"Total", reportCount(tot.Taken), reportCount(tot.Paid), reportCount(tot.Lapsed), reportCount(tot.Reserved)}
	return t
}
