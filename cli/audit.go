package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// audit: the audit trail, read back.

const auditLong = `Prints the audit trail, newest first: one row for every change the box
office made (holds, releases, sales, cancels, admissions, approvals,
prices, programme, staff, terminals, waiting lists, sign-ins refused and
accepted), with who made it, their role and terminal, the show, booking
and amount. Filters combine. Nothing can edit or delete the trail: the
database refuses it.`

// auditConfig is the audit command line.
type auditConfig struct {
	number, staff, day string
	limit              int
}

func auditFlags(fs *flag.FlagSet) runFunc {
	var a auditConfig
	fs.StringVar(&a.number, "booking", "", "only the rows of booking `NUMBER`")
	fs.StringVar(&a.staff, "staff", "", "only what `NAME` did (any case), on --day or in the last 31 days")
	fs.StringVar(&a.day, "day", "", "only the local `DAY` YYYY-MM-DD")
	fs.IntVar(&a.limit, "limit", booking.DefaultAuditLimit, "at most `N` rows")
	return func(c *env, pos []string) error { return c.audit(pos, a) }
}

// audit prints the audit trail, filtered.
func (c *env) audit(pos []string, a auditConfig) error {
	if len(pos) > 0 {
		return usagef("audit takes no arguments (filter with --booking, --staff, --day)")
	}
	if a.limit < 1 || a.limit > booking.MaxAuditLimit {
		return usagef("--limit wants 1..%d", booking.MaxAuditLimit)
	}
	q := booking.AuditQuery{Booking: a.number, Staff: a.staff, Limit: a.limit}
	if a.day != "" {
		day, err := time.ParseInLocation("2006-01-02", a.day, time.Local)
		if err != nil {
			return usagef("--day %q is not a date like 2026-11-29", a.day)
		}
		q.Day = day
	}
	return c.withStore(func(st backend) error {
		rows, err := st.Audit(c.ctx, booking.System, q)
		if err != nil {
			return err
		}
		c.print(auditList(rows))
		return nil
	})
}

// auditList is the trail as the command prints it.
type auditList []booking.AuditEntry

// auditJSON is one row as --json prints it; amount is "" for none.
type auditJSON struct {
	ID       int64               `json:"id"`
	At       string              `json:"at"`
	Actor    string              `json:"actor"`
	Role     string              `json:"role"`
	Terminal string              `json:"terminal"`
	Action   booking.AuditAction `json:"action"`
	Show     int64               `json:"show,omitempty"`
	Booking  string              `json:"booking,omitempty"`
	Shift    int64               `json:"shift,omitempty"`
	Amount   string              `json:"amount,omitempty"`
	Detail   string              `json:"detail"`
}

func (l auditList) jsonValue() any {
	out := make([]auditJSON, 0, len(l))
	for _, e := range l {
		out = append(out, auditJSON{e.ID, e.At.Format(time.RFC3339Nano), booking.Clean(e.Actor), e.Role, booking.Clean(e.Terminal),
			e.Action, e.ShowID, e.Booking, e.ShiftID, auditAmount(e.Amount), booking.Clean(e.Detail)})
	}
	return out
}

func (l auditList) writeText(w io.Writer) {
	if len(l) == 0 {
		fmt.Fprintln(w, "No audit rows match.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tWHO\tROLE\tTERMINAL\tACTION\tSHOW\tBOOKING\tAMOUNT\tDETAIL")
	for _, e := range l {
		show := ""
		if e.ShowID != 0 {
			show = strconv.FormatInt(e.ShowID, 10)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.At.Format("2006-01-02 15:04:05"), booking.CleanLine(e.Actor, 20),
			e.Role, booking.CleanLine(e.Terminal, 16), e.Action, show, e.Booking, auditAmount(e.Amount), booking.CleanLine(e.Detail, 60))
	}
	tw.Flush()
}

// auditAmount is an amount as printed, "" for a row that moved none.
func auditAmount(m booking.Money) string {
	if m == 0 {
		return ""
	}
	return m.String()
}
