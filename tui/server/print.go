package server

import (
	"boxoffice/booking"
	"boxoffice/tui"
)

// printOptions says where a session prints (issue 12): on its terminal's
// printer, as the terminal was registered when the key authenticated, or
// else as PDF files in the server's PDF directory.
func (s *Server) printOptions(st *session, opts *tui.Options) {
	opts.PrintTimeout, opts.Layout = s.cfg.PrintTimeout, s.cfg.Layout
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
