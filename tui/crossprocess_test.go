package tui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strconv"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// TestMain lets the test binary double as the other process of
// BenchmarkCommitToRepaintAcrossProcesses.
func TestMain(m *testing.M) {
	if path := os.Getenv("BOXOFFICE_TUI_WRITER"); path != "" {
		os.Exit(writerProcess(path))
	}
	os.Exit(m.Run())
}

// writerProcess is another counter on the same database file: for every
// seat id read from stdin it holds the seat, or releases it when it holds
// it already, and answers "ok" after the commit.
func writerProcess(path string) int {
	clock := newClock()
	s, err := db.Open(path, dbtest.Options(storeOptions(clock)))
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	defer s.Close()
	show, _ := strconv.ParseInt(os.Getenv("BOXOFFICE_TUI_SHOW"), 10, 64)
	actor := booking.Actor{Name: "other", Role: booking.RoleClerk}
	held := map[int64]int64{}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		seat, _ := strconv.ParseInt(in.Text(), 10, 64)
		if id, ok := held[seat]; ok {
			err = s.Release(context.Background(), actor, id, "other")
			delete(held, seat)
		} else {
			var h *booking.Hold
			h, err = s.Hold(context.Background(), actor, booking.HoldRequest{ShowID: show, SeatIDs: []int64{seat}, Owner: "other"})
			if err == nil {
				held[seat] = h.ID
			}
		}
		if err != nil {
			fmt.Println("ERR", err)
			return 1
		}
		fmt.Println("ok")
	}
	return 0
}

// BenchmarkCommitToRepaintAcrossProcesses: another OS process commits a
// hold on the same file; this process notices through PRAGMA data_version
// (polled every 50 ms) and the open map repaints. Target p99 ≤ 500 ms.
func BenchmarkCommitToRepaintAcrossProcesses(b *testing.B) {
	clock := newClock()
	seeded := MustOpenStore(b, clock)
	path := seeded.Path()
	seeded.Close()
	opts := storeOptions(clock)
	opts.PollInterval = 50 * time.Millisecond
	s := dbtest.Open(b, path, opts)
	viewer := newTestModel(b, s, clock, "viewer", 120, 40)
	show := openGrandShow(b, viewer)

	cmd := osexec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BOXOFFICE_TUI_WRITER="+path, "BOXOFFICE_TUI_SHOW="+strconv.FormatInt(show.ID, 10))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Wait() })
	answers := bufio.NewScanner(stdout)

	var seats []booking.Seat
	for _, seat := range viewer.seats.hall.Seats {
		if !seat.Kind.Accessible() {
			seats = append(seats, seat)
		}
	}
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		wait := takeParked(b, viewer, parkChange)
		got := make(chan tea.Msg, 1)
		go func() { got <- wait() }()

		seat := seats[i%len(seats)]
		start := time.Now()
		io.WriteString(stdin, strconv.FormatInt(seat.ID, 10)+"\n")
		if !answers.Scan() || answers.Text() != "ok" {
			b.Fatalf("other process: %q", answers.Text())
		}
		// Changes from the other process arrive in any order relative to
		// this loop; keep repainting until the map shows this one.
		want := booking.SeatHeldByOther
		if i/len(seats)%2 == 1 {
			want = booking.SeatFree
		}
		for {
			send(b, viewer, <-got)
			_ = viewer.View()
			if viewer.seats.sm.State(seat.ID) == want {
				break
			}
			wait := takeParked(b, viewer, parkChange)
			go func() { got <- wait() }()
		}
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat, "")
	reportLatency(b, rawCommits(b, 500), "raw-commit-")
}
