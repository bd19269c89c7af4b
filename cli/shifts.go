package cli

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// shift, report shift and refund: the command line's drawer (the person
// "system") and partial refunds.

const shiftUsage = "usage: boxoffice shift open --float AMOUNT | shift close --counted AMOUNT [--breakdown \"50x2 20x10\"] | shift list | shift reopen ID --reason R"

func shiftCommand() *command {
	return &command{name: "shift", json: machine, missing: shiftUsage, subs: []*command{
		{name: "open", args: "--float AMOUNT", short: "open the command line's shift with the float counted into the drawer", flags: shiftOpenFlags},
		{name: "close", args: "--counted AMOUNT [--breakdown \"50x2 20x10\"]", short: "close it with a blind count (the total, by denomination or both); prints the Z report", flags: shiftCloseFlags},
		{name: "list", args: "[--open] [--staff NAME] [--json]", short: "shifts, newest first, with their variance", flags: shiftListFlags},
		{name: "reopen", args: "ID --reason R", short: "reopen a closed shift (its first count is kept)", flags: shiftReopenFlags},
	}}
}

// reportShiftCommand is "report shift ID": the X report of an open shift
// or the Z report of a closed one, one of the report group's subcommands.
func reportShiftCommand() *command {
	return &command{name: "shift", args: "ID [--json|--csv]", short: "the X report of an open shift or the Z report of a closed one", flags: reportShiftFlags}
}

func refundCommand() *command {
	return &command{name: "refund", args: "NUMBER SEAT... [--reason R] [--json]", short: "refund some tickets of a booking; their seats come free",
		json: machine, flags: refundFlags}
}

// moneyFlag parses a required amount flag.
func moneyFlag(name, value string) (booking.Money, error) {
	if value == "" {
		return 0, usagef("--%s AMOUNT is required", name)
	}
	m, err := booking.ParseMoney(value)
	if err != nil {
		return 0, usagef("--%s: %s", name, booking.ErrorMessage(err))
	}
	return m, nil
}

func shiftOpenFlags(fs *flag.FlagSet) runFunc {
	float := fs.String("float", "", "the `AMOUNT` counted into the drawer")
	return func(c *env, pos []string) error {
		if len(pos) != 0 {
			return usagef("usage: boxoffice shift open --float AMOUNT")
		}
		f, err := moneyFlag("float", *float)
		if err != nil {
			return err
		}
		return c.withStore(func(st backend) error {
			sh, err := st.OpenShift(c.ctx, booking.System, booking.OpenShiftRequest{Float: f})
			if err != nil {
				return err
			}
			c.print(shiftView{sh})
			return nil
		})
	}
}

func shiftCloseFlags(fs *flag.FlagSet) runFunc {
	counted := fs.String("counted", "", "the `AMOUNT` counted in the drawer")
	breakdown := fs.String("breakdown", "", "the count by denomination, e.g. `\"50x2 20x10\"`")
	return func(c *env, pos []string) error {
		if len(pos) != 0 {
			return usagef("usage: boxoffice shift close --counted AMOUNT [--breakdown \"50x2 20x10\"]")
		}
		req, err := closeRequest(*counted, *breakdown)
		if err != nil {
			return err
		}
		return c.withStore(func(st backend) error {
			r, err := st.CloseShift(c.ctx, booking.System, req)
			if err != nil {
				return err
			}
			c.print(shiftReportView{r: r})
			return nil
		})
	}
}

// closeRequest is the blind count typed: the total, the count by
// denomination, or both when they agree.
func closeRequest(counted, breakdown string) (booking.CloseShiftRequest, error) {
	req := booking.CloseShiftRequest{Breakdown: breakdown}
	var err error
	switch {
	case counted != "":
		if req.Counted, err = moneyFlag("counted", counted); err != nil {
			return req, err
		}
	case strings.TrimSpace(breakdown) != "":
		if req.Counted, err = booking.ParseBreakdown(breakdown); err != nil {
			return req, usagef("--breakdown: %s", booking.ErrorMessage(err))
		}
	default:
		return req, usagef("--counted AMOUNT or --breakdown \"50x2 20x10\" is required")
	}
	if err := req.Validate(); err != nil {
		return req, usagef("%s", booking.ErrorMessage(err))
	}
	return req, nil
}

func shiftListFlags(fs *flag.FlagSet) runFunc {
	open := fs.Bool("open", false, "only the shifts open now")
	staff := fs.String("staff", "", "only `NAME`'s shifts")
	return func(c *env, pos []string) error {
		if len(pos) != 0 {
			return usagef("usage: boxoffice shift list [--open] [--staff NAME]")
		}
		return c.withStore(func(st backend) error {
			list, err := st.ListShifts(c.ctx, booking.System, booking.ShiftQuery{Open: *open, Staff: *staff, Limit: 1000})
			if err != nil {
				return err
			}
			c.print(shiftListView(list))
			return nil
		})
	}
}

func shiftReopenFlags(fs *flag.FlagSet) runFunc {
	reason := fs.String("reason", "", "why it is reopened (required)")
	return func(c *env, pos []string) error {
		if len(pos) != 1 {
			return usagef("usage: boxoffice shift reopen ID --reason R")
		}
		id, ok := parseID(pos[0])
		if !ok {
			return usagef("ID must be a shift number from `boxoffice shift list`, not %q", booking.CleanLine(pos[0], 20))
		}
		req := booking.ReopenShiftRequest{ID: id, Reason: *reason}
		if err := req.Validate(); err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		return c.withStore(func(st backend) error {
			sh, err := st.ReopenShift(c.ctx, booking.System, req)
			if err != nil {
				return err
			}
			c.print(shiftView{sh})
			return nil
		})
	}
}

func reportShiftFlags(fs *flag.FlagSet) runFunc {
	asCSV := fs.Bool("csv", false, "print CSV with a header row")
	return func(c *env, pos []string) error {
		if len(pos) != 1 {
			return usagef("usage: boxoffice report shift ID [--json|--csv]")
		}
		id, ok := parseID(pos[0])
		if !ok {
			return usagef("ID must be a shift number from `boxoffice shift list`, not %q", booking.CleanLine(pos[0], 20))
		}
		if *asCSV && c.jsonOut {
			return usagef("--csv and --json: choose one")
		}
		return c.withStore(func(st backend) error {
			r, err := st.ShiftReport(c.ctx, booking.System, id)
			if err != nil {
				return err
			}
			c.print(shiftReportView{r: r, csv: *asCSV})
			return nil
		})
	}
}

func refundFlags(fs *flag.FlagSet) runFunc {
	reason := fs.String("reason", "", "why (kept with the booking)")
	return func(c *env, pos []string) error {
		if len(pos) < 2 {
			return usagef("usage: boxoffice refund NUMBER SEAT... [--reason R]")
		}
		req := booking.RefundRequest{Number: pos[0], Seats: pos[1:], Reason: *reason}
		if err := req.Validate(); err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		return c.withStore(func(st backend) error {
			b, err := st.RefundTickets(c.ctx, booking.System, req)
			if err != nil {
				return err
			}
			c.print(bookingView{b})
			return nil
		})
	}
}

// shiftView is one shift, as open and reopen answer.
type shiftView struct{ sh *booking.Shift }

func (v shiftView) jsonValue() any { return shiftJSONOf(*v.sh) }

func (v shiftView) writeText(w io.Writer) {
	sh := v.sh
	fmt.Fprintf(w, "Shift %d of %s is %s since %s, float %s.\n", sh.ID, booking.Clean(sh.Staff), sh.Status, sh.OpenedAt.Format("Mon 02 Jan 15:04"), sh.Float.String())
}

type shiftJSON struct {
	ID       int64               `json:"id"`
	Staff    string              `json:"staff"`
	Terminal string              `json:"terminal"`
	Status   booking.ShiftStatus `json:"status"`
	Opened   string              `json:"opened"`
	Float    string              `json:"float"`
	Closed   string              `json:"closed,omitempty"`
	Expected string              `json:"expected,omitempty"`
	Counted  string              `json:"counted,omitempty"`
	Variance string              `json:"variance,omitempty"`
}

func shiftJSONOf(sh booking.Shift) shiftJSON {
	out := shiftJSON{ID: sh.ID, Staff: booking.Clean(sh.Staff), Terminal: booking.Clean(sh.Terminal), Status: sh.Status,
		Opened: sh.OpenedAt.Format(time.RFC3339), Float: sh.Float.String()}
	if sh.Status == booking.ShiftClosed {
		out.Closed, out.Expected, out.Counted, out.Variance = sh.ClosedAt.Format(time.RFC3339), sh.Expected.String(), sh.Counted.String(), sh.Variance().String()
	}
	return out
}

// shiftListView is shift list's answer.
type shiftListView []booking.Shift

func (v shiftListView) jsonValue() any {
	out := make([]shiftJSON, 0, len(v))
	for _, sh := range v {
		out = append(out, shiftJSONOf(sh))
	}
	return out
}

func (v shiftListView) writeText(w io.Writer) {
	if len(v) == 0 {
		fmt.Fprintln(w, "No shifts.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTAFF\tSTATUS\tOPENED\tFLOAT\tEXPECTED\tCOUNTED\tVARIANCE")
	for _, sh := range v {
		exp, cnt, vr := "", "", ""
		if sh.Status == booking.ShiftClosed {
			exp, cnt, vr = sh.Expected.String(), sh.Counted.String(), sh.Variance().String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sh.ID, booking.Clean(sh.Staff), sh.Status, sh.OpenedAt.Format("Mon 02 Jan 15:04"), sh.Float.String(), exp, cnt, vr)
	}
	tw.Flush()
}

// shiftReportView is an X or Z report, as text, JSON or CSV.
type shiftReportView struct {
	r   *booking.ShiftReport
	csv bool
}

// lines are the report's figures in order, the same for every form.
func (v shiftReportView) lines() [][2]string {
	r := v.r
	out := [][2]string{
		{"float", r.Shift.Float.String()},
		{"cash_sales", r.CashSales.String()}, {"cash_refunds", r.CashRefunds.String()},
		{"card_sales", r.CardSales.String()}, {"card_refunds", r.CardRefunds.String()},
		{"sales", fmt.Sprint(r.Sales)}, {"refunds", fmt.Sprint(r.Refunds)},
		{"expected", r.Expected.String()},
	}
	if r.Final {
		out = append(out, [2]string{"counted", r.Counted.String()}, [2]string{"variance", r.Variance.String()})
		if r.Breakdown != "" {
			out = append(out, [2]string{"breakdown", booking.Clean(r.Breakdown)})
		}
	}
	out = append(out, itemShiftLines(r)...)      // concessions (items.go)
	return append(out, giftCardShiftLines(r)...) // gift cards (giftcards.go)
}

func (v shiftReportView) kind() string {
	if v.r.Final {
		return "Z"
	}
	return "X"
}

func (v shiftReportView) jsonValue() any {
	out := map[string]any{"report": v.kind(), "shift": shiftJSONOf(v.r.Shift)}
	for _, l := range v.lines() {
		out[l[0]] = l[1]
	}
	return out
}

func (v shiftReportView) writeText(w io.Writer) {
	if v.csv {
		cw := csv.NewWriter(w)
		cw.Write([]string{"shift", "staff", "report", "field", "value"})
		for _, l := range v.lines() {
			cw.Write([]string{fmt.Sprint(v.r.Shift.ID), booking.CSVText(booking.Clean(v.r.Shift.Staff)), v.kind(), l[0], l[1]})
		}
		cw.Flush()
		return
	}
	sh := v.r.Shift
	fmt.Fprintf(w, "%s report · shift %d · %s · opened %s\n", v.kind(), sh.ID, booking.Clean(sh.Staff), sh.OpenedAt.Format("Mon 02 Jan 15:04"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, l := range v.lines() {
		fmt.Fprintf(tw, "%s\t%s\t\n", strings.ReplaceAll(l[0], "_", " "), l[1])
	}
	tw.Flush()
	for _, e := range v.r.Events {
		if e.Kind == "reopen" {
			fmt.Fprintf(w, "Reopened %s by %s: %s\n", e.At.Format("Mon 02 Jan 15:04"), booking.Clean(e.By), booking.Clean(e.Reason))
		}
	}
}

// refundOf names the seat a ticket's refund is for, and who approved it.
func refundOf(b *booking.Booking, p booking.Payment) string {
	out := ""
	for _, t := range b.Tickets {
		if t.ID == p.TicketID && p.TicketID != 0 {
			out = " for " + t.Seat.Label
		}
	}
	if p.ApprovedBy != "" {
		out += ", approved by " + booking.Clean(p.ApprovedBy)
	}
	return out
}
