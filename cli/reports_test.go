package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/dbtest"
)

// reportData is a data dir holding the reports fixture, built in the
// local zone the command line reads days in.
func reportData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	dbtest.ReportFixture(t, filepath.Join(dir, dbFile), time.Local)
	return dir
}

// reportJSON is a report as --json prints it.
type reportJSON struct {
	Report string           `json:"report"`
	From   string           `json:"from"`
	To     string           `json:"to"`
	Rows   []map[string]any `json:"rows"`
	Count  int              `json:"count"`
	Total  map[string]any   `json:"total"`
}

// Every report's --csv parses with encoding/csv, starts with a header row
// and ends with a totals row, and both agree with its --json: the same
// rows, cell for cell, and the same totals.
func TestReport_CSVMatchesJSON(t *testing.T) {
	t.Parallel()
	dir := reportData(t)
	rng := []string{"--from", "2026-11-02", "--to", "2026-11-04"}
	for _, args := range [][]string{
		{"takings"}, {"takings", "--by", "film"}, {"takings", "--by", "show"}, {"takings", "--by", "method"},
		{"takings", "--by", "clerk"}, {"refunds"}, {"occupancy"}, {"occupancy", "--by", "hall"}, {"shifts"}, {"noshows"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			base := append([]string{"--data", dir, "report"}, append(args, rng...)...)
			out, errOut, err := runArgs(t, "", append(base, "--csv")...)
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatalf("CSV does not parse: %v\n%s", err, out)
			}
			out, errOut, err = runArgs(t, "", append(base, "--json")...)
			var js reportJSON
			if err != nil || json.Unmarshal([]byte(out), &js) != nil {
				t.Fatalf("--json: %v\n%s%s", err, out, errOut)
			}
			checkCSVAgainstJSON(t, records, js)
		})
	}
}

func checkCSVAgainstJSON(t *testing.T, records [][]string, js reportJSON) {
	t.Helper()
	if len(records) != js.Count+2 || js.Count != len(js.Rows) {
		t.Fatalf("%d CSV records for %d JSON rows (count %d): want a header, the rows, a total", len(records), len(js.Rows), js.Count)
	}
	header, total := records[0], records[len(records)-1]
	if total[0] != "total" {
		t.Errorf("last row %q is not the totals", total)
	}
	for i, row := range js.Rows {
		for k, v := range row {
			col := slices.Index(header, k)
			if col < 0 {
				t.Fatalf("header %q has no column %q", header, k)
			}
			if got := records[i+1][col]; got != jsonCell(v) {
				t.Errorf("row %d %s: CSV %q, JSON %q", i, k, got, jsonCell(v))
			}
		}
	}
	if len(js.Total) == 0 {
		t.Fatal("no totals in the JSON")
	}
	for k, v := range js.Total {
		col := slices.Index(header, k)
		if col < 0 || total[col] != jsonCell(v) {
			t.Errorf("total %s: CSV %q (column %d), JSON %q", k, total[min(max(col, 0), len(total)-1)], col, jsonCell(v))
		}
	}
}

// jsonCell is a decoded JSON value as the CSV writes it.
func jsonCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// The takings by day on the command line are the figures worked out by
// hand for the fixture (db/reports_test.go), money as 12.50.
func TestReport_TakingsFigures(t *testing.T) {
	t.Parallel()
	dir := reportData(t)
	out, errOut, err := runArgs(t, "", "--data", dir, "report", "takings", "--from", "2026-11-02", "--to", "2026-11-04", "--csv")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	want := "key,label,sales,refunds,net,tickets,refunded\n" +
		"2026-11-02,Mon 2 Nov 2026,93.00,0.00,93.00,8,0\n" +
		"2026-11-03,Tue 3 Nov 2026,90.00,10.00,80.00,8,1\n" +
		"2026-11-04,Wed 4 Nov 2026,12.50,35.00,-22.50,1,3\n" +
		"total,,195.50,45.00,150.50,17,4\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// The text form for a person carries the same total.
	out, _, err = runArgs(t, "", "--data", dir, "report", "refunds", "--from", "2026-11-02", "--to", "2026-11-04")
	if err != nil || !strings.Contains(out, "whole booking") || !strings.Contains(out, "45.00") {
		t.Errorf("refunds text: %v\n%s", err, out)
	}
}

// A mistake is a usage error before anything is opened or printed.
func TestReport_Refused(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "never")
	for _, args := range [][]string{
		{"report", "takings", "--from", "2026-11-31"},
		{"report", "takings", "--by", "week"},
		{"report", "occupancy", "--by", "film"},
		{"report", "refunds", "--from", "2026-11-04", "--to", "2026-11-02"},
		{"report", "shifts", "--from", "2025-01-01", "--to", "2026-11-02"},
		{"report", "noshows", "--csv", "--json"},
		{"report", "takings", "extra"},
		{"report"},
	} {
		out, _, err := runArgs(t, "", append([]string{"--data", dir}, args...)...)
		if err == nil || (out != "" && !strings.HasPrefix(out, `{`)) {
			t.Errorf("%q: %v, printed %q", args, err, out)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused report made the data dir: %v", err)
	}
}
