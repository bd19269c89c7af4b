package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// A report saved as a CSV file (e on the reports screen): the sheet on
// show, exactly as `boxoffice report … --csv` writes it, in a new file of
// the exports folder (Options.ExportDir) under a name made from the report
// and its days. Nobody types a path, so nothing lands outside that folder,
// and no file is ever written over.

// exportedMsg is the answer to an export: the file's name in the folder.
type exportedMsg struct {
	name string
	rows int
	err  error
}

// exportReportCmd saves the report on show.
func (m *Model) exportReportCmd() tea.Cmd {
	r := &m.reports
	switch {
	case r.exporting:
		return nil
	case r.busy || r.sheet == nil:
		m.setError("Wait for the report, then export it.")
		return nil
	case m.opts.ExportDir == "":
		m.setError("This counter saves no files: it was started without an exports folder.")
		return nil
	}
	dir, sheet := m.opts.ExportDir, r.sheet
	r.exporting = true
	m.setInfo("Saving…")
	return m.call(func(context.Context) (tea.Msg, error) {
		name, err := writeSheetIn(dir, sheet)
		return exportedMsg{name: name, rows: len(sheet.Rows), err: err}, err
	})
}

func (m *Model) onExported(msg exportedMsg) tea.Cmd {
	r := &m.reports
	r.exporting = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	m.setInfo("")
	r.note = fmt.Sprintf("Saved %s in the data folder:\n%s/%s", plural(msg.rows, "row", "rows"), filepath.Base(m.opts.ExportDir), msg.name)
	return nil
}

// writeSheetIn writes sheet as CSV to a new file in dir (made 0700 when
// missing: reports name customers) and returns the file's name. A name
// taken already gets a number; the file is made with O_EXCL, 0600, so a
// file (or a link) of that name is never written through.
func writeSheetIn(dir string, sheet *booking.ReportSheet) (string, error) {
	var buf bytes.Buffer
	if err := sheet.WriteCSV(&buf); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", booking.Errorf(booking.EInternal, "Cannot make the exports folder: %s.", fileErr(err))
	}
	base := strings.TrimSuffix(sheet.FileName(), ".csv")
	for i := 1; i < 100; i++ {
		name := base + ".csv"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.csv", base, i)
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", booking.Errorf(booking.EInternal, "Cannot save %s: %s.", name, fileErr(err))
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
			return "", booking.Errorf(booking.EInternal, "Cannot save %s: %s.", name, fileErr(err))
		}
		return name, nil
	}
	return "", booking.Errorf(booking.EInvalid, "The exports folder has 99 files called %s already: move some away.", base+"*.csv")
}

// fileErr is what went wrong with a file, without the server's path.
func fileErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
