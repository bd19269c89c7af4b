package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/pgtest"
	"boxoffice/internal/storetest"
	"boxoffice/pg"
)

// flakyBackupper fails its first backup and records the paths of the
// ones that worked.
type flakyBackupper struct {
	backupper
	mu    sync.Mutex
	calls int
	made  []string
}

func (f *flakyBackupper) Backup(ctx context.Context, path string) (booking.BackupInfo, error) {
	f.mu.Lock()
	f.calls++
	first := f.calls == 1
	f.mu.Unlock()
	if first {
		return booking.BackupInfo{}, errors.New("disk full")
	}
	info, err := f.backupper.Backup(ctx, path)
	if err == nil {
		f.mu.Lock()
		f.made = append(f.made, filepath.Base(path))
		f.mu.Unlock()
	}
	return info, err
}

func (f *flakyBackupper) madeSoFar() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.made)
}

// Rotating backups on a short period while sales go on: a failed one is
// logged and retried a period later, the newest --keep copies stay, each
// a whole database, and files the rotation did not make are left alone.
func TestRotation(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	dir := t.TempDir()
	foreign := []string{"notes.txt", "boxoffice-mine.db", "boxoffice-20200101T000000.000Z.db.bak"}
	for _, name := range foreign {
		os.WriteFile(filepath.Join(dir, name), []byte("mine"), 0o600)
	}
	var logged syncBuf
	f := &flakyBackupper{backupper: s}
	r := rotation{dir: dir, every: 30 * time.Millisecond, keep: 2, store: f, log: slog.New(slog.NewTextHandler(&logged, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.run(ctx) }()
	// The day of the seed's first show, two hours from now (tomorrow when
	// this runs late in the evening).
	shows, err := s.Shows(ctx, booking.System, time.Now().Add(2*time.Hour))
	if err != nil || len(shows) == 0 {
		t.Fatalf("shows %v %v", shows, err)
	}
	for i := 0; len(f.madeSoFar()) < 4; i++ {
		sellOne(t, s, shows[0].ID, i)
	}
	cancel()
	<-done

	if !strings.Contains(logged.String(), "backup failed; trying again next period") || !strings.Contains(logged.String(), "disk full") {
		t.Errorf("the failed backup was not logged:\n%s", logged.String())
	}
	made := f.madeSoFar()
	var kept []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !slices.Contains(foreign, e.Name()) {
			kept = append(kept, e.Name())
		}
	}
	if want := made[len(made)-2:]; !slices.Equal(kept, want) {
		t.Fatalf("kept %v, want the newest two of %v", kept, made)
	}
	for _, name := range foreign {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "mine" {
			t.Errorf("%s was touched: %q %v", name, b, err)
		}
	}
	for _, name := range kept {
		if r, err := db.Verify(context.Background(), filepath.Join(dir, name)); err != nil || !r.OK() {
			t.Errorf("%s: %+v %v", name, r, err)
		}
	}
}

// A server restarted within the period does not take another copy at once.
func TestRotation_WaitsForThePeriod(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recent := rotationName(time.Now().Add(-time.Minute))
	os.WriteFile(filepath.Join(dir, recent), nil, 0o600)
	f := &flakyBackupper{}
	r := rotation{dir: dir, every: time.Hour, keep: 3, store: f, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	r.run(ctx)
	if f.calls != 0 {
		t.Fatalf("%d backups within the period of the last", f.calls)
	}
}

func sellOne(t *testing.T, s *db.Store, show int64, i int) {
	t.Helper()
	ctx := context.Background()
	owner := "rot-" + strconv.Itoa(i)
	h, err := s.HoldBest(ctx, storetest.Clerk, booking.HoldBestRequest{ShowID: show, N: 1, Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, storetest.Clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
}

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type fakeSessions map[string]int

func (f fakeSessions) SessionsByRole() map[string]int { return f }

// scrape GETs the metrics and returns the value of each sample line.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if m := sampleRe.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			out[m[1]] = v
		}
	}
	return out
}

var sampleRe = regexp.MustCompile(`^(boxoffice_[^ ]+) (\S+)$`)

// The metrics count what the store committed: a sale once (its replay by
// the same key not again), a clash, holds, a refund, and the latencies.
func TestMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{})
	web := httptest.NewServer(metricsHandler(s, fakeSessions{"clerk": 2, "none": 1}))
	defer web.Close()
	before := scrape(t, web.URL+"/metrics")
	if before["boxoffice_sales_total"] != 0 || before[`boxoffice_sessions{role="clerk"}`] != 2 || before[`boxoffice_sessions{role="none"}`] != 1 {
		t.Fatalf("before any sale: %v", before)
	}
	shows, err := s.Shows(ctx, booking.System, time.Now().Add(2*time.Hour)) // the seed's first show's day
	if err != nil || len(shows) == 0 {
		t.Fatalf("shows %v %v", shows, err)
	}
	show := shows[0].ID
	h, err := s.Hold(ctx, storetest.Clerk, booking.HoldRequest{ShowID: show, Seats: []string{"A1", "A2"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, storetest.Clerk, booking.HoldRequest{ShowID: show, Seats: []string{"A2"}, Owner: "b"}); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("clash: %v", err)
	}
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "m-1", Method: booking.Card}
	b, err := s.Checkout(ctx, storetest.Clerk, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, storetest.Clerk, req); err != nil { // a double Enter
		t.Fatal(err)
	}
	if _, err := s.Cancel(ctx, storetest.Supervisor, booking.CancelRequest{Number: b.Number}); err != nil {
		t.Fatal(err)
	}
	got := scrape(t, web.URL+"/metrics")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); got = scrape(t, web.URL+"/metrics") {
		if _, swept := got["boxoffice_sweeper_last_run_age_seconds"]; swept {
			break
		}
		time.Sleep(50 * time.Millisecond) // the first sweep is a second after Open
	}
	for name, want := range map[string]float64{
		"boxoffice_sales_total": 1, "boxoffice_seats_sold_total": 2, "boxoffice_clashes_total": 1,
		"boxoffice_holds_total": 1, "boxoffice_refunds_total": 1, "boxoffice_admissions_total": 0,
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
	if got["boxoffice_write_seconds_count"] < 5 || got["boxoffice_commit_batch_seconds_count"] < 1 || got[`boxoffice_write_seconds_bucket{le="+Inf"}`] != got["boxoffice_write_seconds_count"] {
		t.Errorf("latencies: %v", got)
	}
	if lag, ok := got["boxoffice_sweeper_last_run_age_seconds"]; !ok || lag < 0 || lag > 10 {
		t.Errorf("sweeper lag %v (%v)", lag, ok)
	}
}

func TestMetricsAddrAllowed(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"127.0.0.1:9222": true, "[::1]:9222": true, "localhost:9222": true,
		":9222": false, "0.0.0.0:9222": false, "192.0.2.7:9222": false, "[::]:9222": false, "9222": false,
	} {
		err := metricsAddrAllowed(addr, false)
		if (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
		var usage *UsageError
		if err != nil && (!errors.As(err, &usage) || !strings.Contains(err.Error(), "--metrics")) {
			t.Errorf("%s: %v is not a usage error about --metrics", addr, err)
		}
	}
	if err := metricsAddrAllowed("0.0.0.0:9222", true); err != nil {
		t.Errorf("--metrics-public: %v", err)
	}
}

// On PostgreSQL the metrics carry how far the database's clock is from
// this server's, which every hold and expiry goes by, and the sessions.
func TestMetrics_PostgresClockSkew(t *testing.T) {
	t.Parallel()
	s, err := pg.Open(context.Background(), pgtest.URL(t), pg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	web := httptest.NewServer(metricsHandler(s, fakeSessions{"clerk": 1}))
	defer web.Close()
	got := scrape(t, web.URL+"/metrics")
	skew, ok := got["boxoffice_database_clock_skew_seconds"]
	if !ok || skew <= -1 || skew >= 1 || got[`boxoffice_sessions{role="clerk"}`] != 1 {
		t.Fatalf("metrics on PostgreSQL on one machine: %v", got)
	}
}
