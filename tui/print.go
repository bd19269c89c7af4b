package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/paper"
)

// Printing (issue 12): after a sale the counter prints the tickets and
// the receipt on its printer, or, with none, writes the tickets as a PDF
// in Options.PDFDir. A job is a command like any store call: it runs off
// the UI goroutine, bounded by Options.PrintTimeout, after the sale's
// transaction committed, so a slow or dead printer neither blocks the
// screen nor holds the database. A failure never undoes the sale: the
// clerk reads it and prints again (KeyMap.Reprint).

// printFailed is what the clerk reads when a job fails, before the reason.
const printFailed = "Printing failed — reprint from the booking."

// printedMsg is a print job's answer.
type printedMsg struct {
	number  string
	tickets int
	what    string // a receipt or report printed alone, "" for a booking's tickets
	path    string // the PDF written, "" for paper
	err     error
}

// PrinterMsg is sent into a running program from outside (the SSH
// server) when the printer of the session's terminal was changed: the
// session prints there from its next job on. A zero Printer prints on
// none, writing the tickets of a sale as a PDF in PDFDir instead.
type PrinterMsg struct {
	Printer booking.Printer
	PDFDir  string
}

// canPrint reports whether this counter has anywhere to print.
func (m *Model) canPrint() bool { return !m.opts.Printer.None() || m.opts.PDFDir != "" }

// printBooking prints the booking called number as it is now — its
// issued tickets with their current codes, and its sale's receipt — on
// this counter's printer, or writes the tickets as a PDF when it has
// none. nil when the counter has neither, or a job is already running.
// It is the print that follows the sale; printAgain is every later one.
func (m *Model) printBooking(number string) tea.Cmd { return m.printBookingJob(number, false) }

// printAgain is printBooking after the sale was printed (or tried): the
// receipt is marked DUPLICATE and shows the refunds made since.
func (m *Model) printAgain(number string) tea.Cmd { return m.printBookingJob(number, true) }

func (m *Model) printBookingJob(number string, again bool) tea.Cmd {
	if !m.canPrint() {
		return nil
	}
	if m.printing {
		m.setInfo("Still printing " + booking.Clean(number) + "…")
		return nil
	}
	m.printing = true
	if !m.statusErr {
		m.setInfo(strings.TrimSpace(m.status + " Printing…"))
	}
	store, actor, opts := m.store, m.actor(), m.opts
	ctx := m.ctx
	return m.park(parkPrint, m.call(func(c context.Context) (tea.Msg, error) {
		b, err := store.Booking(c, actor, number)
		if err != nil {
			return printedMsg{number: number, err: err}, err
		}
		opts.Layout = jobLayout(c, store, actor, opts.Site, opts.Layout)
		// The job has its own deadline (PrintTimeout), not the store call's.
		return printJob(ctx, opts, b, again), nil
	}))
}

// printJob sends b to opts' printer, the receipt as a duplicate when
// again, or writes its PDF.
func printJob(ctx context.Context, opts Options, b *booking.Booking, again bool) printedMsg {
	out := printedMsg{number: b.Number, tickets: len(paper.Printable(b))}
	if opts.Printer.None() {
		out.path, out.err = opts.Layout.WritePDFIn(opts.PDFDir, b)
		return out
	}
	build := opts.Layout.BookingJob
	if again {
		build = opts.Layout.ReprintJob
	}
	job, err := build(b)
	if err != nil {
		out.err = err
		return out
	}
	out.err = paper.Send(ctx, opts.Printer, job, opts.PrintTimeout)
	return out
}

func (m *Model) onPrinted(msg printedMsg) tea.Cmd {
	m.printing = false
	switch {
	case msg.err != nil:
		m.log.Warn("print", "booking", msg.number, "printer", m.opts.Printer.String(), "err", msg.err)
		reason := booking.ErrorMessage(msg.err)
		if reason == "Internal error." {
			reason = ""
		}
		if msg.what != "" {
			m.setError("Printing the " + msg.what + " failed. " + reason)
			return nil
		}
		m.setError(printFailed + " " + reason)
	case msg.path != "":
		m.setInfo("Tickets of " + booking.Clean(msg.number) + " saved as PDF: " + booking.Clean(msg.path))
	case msg.what != "":
		m.setInfo(strings.TrimSpace(m.status + " Printed the " + msg.what + "."))
	default:
		m.setInfo(fmt.Sprintf("Printed %d ticket(s) and the receipt of %s.", msg.tickets, booking.Clean(msg.number)))
	}
	return nil
}

// printRefund prints the receipt of the refund just made on b (its
// latest refund payments) on the counter's printer; a counter with PDFs
// only gets none, as a PDF is for tickets.
func (m *Model) printRefund(b *booking.Booking) tea.Cmd {
	var last time.Time
	for _, p := range b.Payments {
		if p.Kind == booking.PaymentRefund && p.At.After(last) {
			last = p.At
		}
	}
	if last.IsZero() {
		return nil
	}
	return m.printAlone("refund receipt", receiptJob(paper.RefundReceipt(b, last)))
}

// printZReport prints a closed shift's Z report on the counter's printer.
func (m *Model) printZReport(z *booking.ShiftReport) tea.Cmd {
	if z == nil {
		return nil
	}
	return m.printAlone("Z report", func(l paper.Layout) []byte { return l.ZReportJob(z) })
}

// printAlone lays a job out with build and sends it to the counter's
// printer, when it has one and is not busy with another. The settings
// and rates are read off the UI goroutine, with the job.
func (m *Model) printAlone(what string, build func(paper.Layout) []byte) tea.Cmd {
	if m.opts.Printer.None() || m.printing {
		return nil
	}
	m.printing = true
	ctx, printer, timeout := m.ctx, m.opts.Printer, m.opts.PrintTimeout
	store, actor, site, base := m.store, m.actor(), m.opts.Site, m.opts.Layout
	return m.park(parkPrint, func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, callTimeout)
		l := jobLayout(c, store, actor, site, base)
		cancel()
		return printedMsg{what: what, err: paper.Send(ctx, printer, build(l), timeout)}
	})
}

// receiptJob lays r out as a receipt job.
func receiptJob(r paper.Receipt) func(paper.Layout) []byte {
	return func(l paper.Layout) []byte { return l.ReceiptJob(r) }
}

// jobLayout is base with the settings in force at site (the counter's;
// AllSites: the cinema's) and the tax rates, read once for a job, so a
// setting changed by a manager prints from the next job on. A failed read
// leaves base's (the defaults at worst): the sale is made, and its paper
// is printed rather than lost for a heading.
func jobLayout(ctx context.Context, store Backend, actor booking.Actor, site int64, base paper.Layout) paper.Layout {
	if c, err := store.Cinema(ctx, actor, site); err == nil {
		base.Settings = c
	}
	if r, err := store.TaxRates(ctx, actor); err == nil {
		base.Rates = r
	}
	return base
}
