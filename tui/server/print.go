package server

import (
	"context"

	"boxoffice/booking"
	"boxoffice/tui"
)

// printOptions says where a session prints (issue 12): on its terminal's
// printer, as the terminal was registered when the key authenticated, or
// else as PDF files in the server's PDF directory.
//
// A terminal's printer opens its cash drawer unless a manager turned that
// off (booking.Books.SetTerminalDrawer), as it stood when the session
// began; a staff key's session has no terminal and opens none.
func (s *Server) printOptions(ctx context.Context, st *session, opts *tui.Options) {
	opts.PrintTimeout, opts.Layout = s.cfg.PrintTimeout, s.cfg.Layout
	opts.Layout.Drawer = false
	if st.term != nil {
		on, err := s.cfg.Store.TerminalDrawer(ctx, booking.System, st.term.Name)
		if err != nil {
			s.log.Warn("terminal drawer", "terminal", st.term.Name, "err", err)
		}
		opts.Layout.Drawer = on && err == nil
	}
	if st.term != nil && st.term.Printer != "" {
		p, err := booking.ParsePrinter(st.term.Printer)
		if err == nil {
			opts.Printer = p
			return
		}
		// Stored canonical by SetTerminalPrinter; a row edited by hand
		// falls back to PDFs rather than printing nowhere.
		s.log.Warn("terminal printer", "terminal", st.term.Name, "err", err)
	}
	opts.PDFDir = s.cfg.PDFDir
}

// refreshPrinters hands each open session of a terminal its terminal's
// printer when it changed since the session began or was last told (a
// manager's screen, or boxoffice terminal printer): the counters already
// open print there from their next job, not only new sessions. It reads
// the terminals once for all sessions, on the access check's tick, and
// only while a terminal's session is open.
func (s *Server) refreshPrinters(ctx context.Context, open []*session) {
	var terms []*session
	for _, st := range open {
		if st.term != nil && !st.withdrawn.Load() {
			terms = append(terms, st)
		}
	}
	if len(terms) == 0 {
		return
	}
	list, err := s.cfg.Store.ListTerminals(ctx, booking.System)
	if err != nil {
		s.log.Warn("terminal printers", "err", err)
		return
	}
	printers := make(map[int64]string, len(list))
	for _, t := range list {
		printers[t.ID] = t.Printer
	}
	for _, st := range terms {
		url, ok := printers[st.term.ID]
		if !ok || !st.swapPrinter(url) {
			continue // removed (the access check ends it), or unchanged
		}
		msg := tui.PrinterMsg{PDFDir: s.cfg.PDFDir}
		if p, err := booking.ParsePrinter(url); err == nil {
			msg.Printer = p
		} else {
			s.log.Warn("terminal printer", "terminal", st.term.Name, "err", err)
		}
		s.log.Info("terminal printer changed", append(st.logAttrs(), "session", st.id, "printer", msg.Printer.String())...)
		st.send(msg)
	}
}

// swapPrinter records url as the printer the session was told of and
// reports whether it is another than before (at first, the terminal's as
// it authenticated).
func (st *session) swapPrinter(url string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	cur := st.term.Printer
	if st.printerSet {
		cur = st.printer
	}
	if cur == url {
		return false
	}
	st.printer, st.printerSet = url, true
	return true
}
