//go:build unix

package db_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// BenchmarkReports_Year runs every report over a year of history: the
// year `bench --scale` generated and keeps under the OS temp dir (run it
// once first), or the database BOXOFFICE_YEAR_DB names. Beside the time
// of each it reports the CPU it took (cpu-ms/op, what a busy machine
// inflates least) and the machine's raw commit rate in the same run
// (raw-tx/s), to read the figures against.
//
//	go test ./db -run '^$' -bench Reports_Year -benchtime 5x
func BenchmarkReports_Year(b *testing.B) {
	src := os.Getenv("BOXOFFICE_YEAR_DB")
	if src == "" {
		found, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("boxoffice-scale-s%d-*-365d-*", db.SchemaVersion()), "boxoffice.db"))
		if len(found) == 0 {
			b.Skip("no year of history: run boxoffice bench --scale once, or set BOXOFFICE_YEAR_DB")
		}
		src = found[len(found)-1]
	}
	path := filepath.Join(b.TempDir(), "boxoffice.db")
	if err := copyDB(src, path); err != nil {
		b.Fatal(err)
	}
	raw, err := db.RawCommitRate(filepath.Join(b.TempDir(), "raw.db"), "full", 500*time.Millisecond)
	if err != nil {
		b.Fatal(err)
	}
	s := dbtest.Open(b, path, db.Options{SweepInterval: -1, PollInterval: -1})
	ctx := context.Background()
	today := booking.DayStart(time.Now())
	year := booking.ReportRange{From: today.AddDate(0, 0, -364), To: today}
	mgr := storetest.Manager
	var reports []yearReport
	for _, by := range booking.TakingsBys() {
		reports = append(reports, yearReport{"takings_by_" + string(by), func() error {
			_, err := s.ReportTakings(ctx, mgr, booking.TakingsQuery{ReportRange: year, By: by})
			return err
		}})
	}
	reports = append(reports, []yearReport{
		{"refunds", func() error { _, err := s.ReportRefunds(ctx, mgr, year); return err }},
		{"occupancy_by_show", func() error {
			_, err := s.ReportOccupancy(ctx, mgr, booking.OccupancyQuery{ReportRange: year, By: booking.PerShow})
			return err
		}},
		{"occupancy_by_hall", func() error {
			_, err := s.ReportOccupancy(ctx, mgr, booking.OccupancyQuery{ReportRange: year, By: booking.PerHall})
			return err
		}},
		{"shifts", func() error { _, err := s.ReportShifts(ctx, mgr, year); return err }},
		{"noshows", func() error { _, err := s.ReportNoShows(ctx, mgr, year); return err }},
	}...)
	for _, r := range reports {
		b.Run(r.name, func(b *testing.B) {
			c0 := cpuTime()
			for b.Loop() {
				if err := r.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(raw, "raw-tx/s")
		})
	}
}

// yearReport is one report the benchmark runs.
type yearReport struct {
	name string
	run  func() error
}

// cpuTime is the CPU this process used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func copyDB(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
