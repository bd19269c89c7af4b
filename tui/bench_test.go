package tui

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// BenchmarkSeatMapView draws the map of the 400-seat demo hall (Grand) with
// seats held and sold, at 120×40. Target: ≤ 1 ms per View.
func BenchmarkSeatMapView(b *testing.B) {
	clock := newClock()
	s := MustOpenStore(b, clock)
	m := newTestModel(b, s, clock, "bench", 120, 40)
	show := openGrandShow(b, m)
	if show.Capacity < 400 {
		b.Fatalf("hall has %d seats", show.Capacity)
	}
	press(b, m, "6", "b")
	goTo(b, m, "D1-5")
	b.ReportAllocs()
	for b.Loop() {
		m.drawn = false // draw the frame, not the cached copy
		_ = m.View()
	}
}

// BenchmarkCommitToRepaint measures, in one process, the time from a
// commit at one counter to the repaint of another counter's open map of
// the same show: the write, the broker, the waiting command, the reload
// of the seat map and the View that shows the change.
func BenchmarkCommitToRepaint(b *testing.B) {
	clock := newClock()
	s := MustOpenStore(b, clock)
	viewer := newTestModel(b, s, clock, "viewer", 120, 40)
	show := openGrandShow(b, viewer)
	var seats []booking.Seat
	for _, seat := range viewer.seats.hall.Seats {
		if !seat.Kind.Accessible() && !seat.Blocked {
			seats = append(seats, seat)
		}
	}
	ctx := context.Background()
	writer := booking.Actor{Name: "writer", Role: booking.RoleClerk}
	held := map[int64]int64{} // seat -> hold id
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		wait := takeParked(b, viewer, parkChange)
		got := make(chan tea.Msg, 1)
		go func() { got <- wait() }()

		seat := seats[i%len(seats)]
		start := time.Now()
		if id, ok := held[seat.ID]; ok {
			if err := s.Release(ctx, writer, id, "writer"); err != nil {
				b.Fatal(err)
			}
			delete(held, seat.ID)
		} else {
			h, err := s.Hold(ctx, writer, booking.HoldRequest{ShowID: show.ID, SeatIDs: []int64{seat.ID}, Owner: "writer"})
			if err != nil {
				b.Fatal(err)
			}
			held[seat.ID] = h.ID
		}
		send(b, viewer, <-got)
		v := viewer.View().Content
		lat = append(lat, time.Since(start))

		want := booking.SeatHeldByOther
		if _, ok := held[seat.ID]; !ok {
			want = booking.SeatFree
		}
		if st := viewer.seats.sm.State(seat.ID); st != want || !strings.Contains(v, "SCREEN") {
			b.Fatalf("after the change %s shows %v, want %v", seat.Label, st, want)
		}
	}
	reportLatency(b, lat, "")
	// The machine's own limit in the same run: a bare commit on a file in
	// the same directory, as the store opens it (WAL, synchronous=NORMAL).
	reportLatency(b, rawCommits(b, 500), "raw-commit-")
}

// reportLatency reports the median and the 99th percentile of lat.
func reportLatency(b *testing.B, lat []time.Duration, prefix string) {
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, prefix+"p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, prefix+"p99-ms")
	}
}

// rawCommits times n bare BEGIN IMMEDIATE; INSERT; COMMIT transactions on
// a fresh SQLite file with the store's pragmas.
func rawCommits(b *testing.B, n int) []time.Duration {
	b.Helper()
	path := filepath.Join(b.TempDir(), "raw.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := raw.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)`); err != nil {
		b.Fatal(err)
	}
	conn, err := raw.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		for _, q := range []string{"BEGIN IMMEDIATE", "INSERT INTO t (v) VALUES (1)", "COMMIT"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		lat = append(lat, time.Since(start))
	}
	return lat
}
