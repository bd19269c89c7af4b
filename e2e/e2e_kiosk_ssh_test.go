package e2e

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/clitest"
)

// kioskReserveAnn reserves three seats of today's first film at the kiosk
// on the screen for Ann Lee (phone ending 0018), from the films list
// opened with Enter on the welcome screen, and returns the booking
// number the kiosk shows.
func (tm *tmuxTerm) kioskReserveAnn() string {
	tm.t.Helper()
	tm.send("Enter")
	tm.waitFor("Choose a film")
	tm.send("Enter")
	tm.waitFor("today", "seats free")
	tm.send("Enter")
	tm.waitFor("how many tickets?")
	tm.send("Right", "Right", "Enter")
	tm.waitFor("Your seats:", "SCREEN")
	tm.send("Enter")
	tm.waitFor("Who are they for?")
	tm.send("Ann Lee", "Tab", "020 7946 0018", "Enter")
	screen := tm.waitFor("Reserved. Your booking number is", "Pay at the counter by 10:30")
	number := regexp.MustCompile(`BO-[2-9A-Z]{8}`).FindString(screen)
	if number == "" {
		tm.t.Fatalf("no booking number on the screen:\n%s", screen)
	}
	return number
}

// kioskCollect opens the collect screen from the welcome screen left by
// a reservation and types number with the phone's last four digits.
func (tm *tmuxTerm) kioskCollect(number string) {
	tm.t.Helper()
	tm.send("Enter")
	tm.waitFor("Welcome")
	tm.send("Down", "Enter")
	tm.waitFor("Collect your tickets")
	tm.send(number, "Tab", "0018", "Enter")
}

// Must-show 1: the shipped binary serves the kiosk; the system's ssh
// client, with no key at all, logs in as kiosk, reserves two seats and
// collects them with the number and the phone's last four digits; the
// staff chord does nothing there; and every staff action tried as the
// actor the session wrote its reservation with is refused by the store.
func kioskOverRealSSH(t *testing.T, bin string) {
	needTools(t, "ssh", "tmux")
	data := filepath.Join(t.TempDir(), "data")
	// Tomorrow at 09:00 UTC: the demo's first show (11:00) is on sale and
	// before its cut-off whenever the test runs.
	now := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02") + "T09:00:00Z"
	env := append(os.Environ(), "TZ=UTC", "BOXOFFICE_NOW="+now)
	initCmd := exec.Command(bin, "--data", data, "init")
	initCmd.Env = env
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	port, kioskPort := freePort(t), freePort(t)
	serverOut := &clitest.SyncBuffer{}
	srv := exec.Command(bin, "--data", data, "serve", "--listen", "127.0.0.1:"+port, "--kiosk", "--kiosk-listen", "127.0.0.1:"+kioskPort)
	srv.Env, srv.Stdout, srv.Stderr = env, serverOut, serverOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(serverOut.String(), "Serving the kiosk") {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", serverOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	tm := startTmux(t, 100, 50, "ssh", "-t", "-p", kioskPort, "-F", "/dev/null", "-o", "PubkeyAuthentication=no",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "kiosk@127.0.0.1")
	tm.waitFor("Welcome", "Book tickets")
	// The chord and ctrl+c do nothing here: the Enter right after them,
	// taken in order, opens the films (a close dialog would take it).
	tm.send("C-x", "C-e", "C-c")
	number := tm.kioskReserveAnn()
	tm.kioskCollect(number)
	screen := tm.waitFor(number, "Not paid yet")
	if strings.Count(screen, "seats ") < 1 {
		t.Fatalf("collect does not name the seats:\n%s", screen)
	}
	if strings.Contains(serverOut.String(), "auth failure") {
		t.Errorf("a kiosk login went through staff authentication:\n%s", serverOut.String())
	}

	// The actor the session acted as, as the audit trail recorded it.
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var actor booking.Actor
	var role string
	if err := raw.QueryRow(`SELECT actor, role, terminal FROM audit WHERE action = 'reserve'`).Scan(&actor.Name, &role, &actor.Terminal); err != nil {
		t.Fatal(err)
	}
	if actor.Name != "kiosk" || role != "" || actor.Terminal != "kiosk-ssh" {
		t.Fatalf("the reservation was made as %+v (role %q), not the kiosk", actor, role)
	}
	actor.Role = booking.RoleKiosk // below door: the audit trail records no role for it
	// Any signing key: every call below is refused before a code matters.
	key := booking.TicketKey{ID: 9, Secret: []byte("e2e-kiosk-not-the-real-key-01234")}
	st, err := db.Open(filepath.Join(data, "boxoffice.db"), db.Options{TicketKey: key, SweepInterval: -1, PollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, err := range staffActions(context.Background(), st, actor, number) {
		if booking.ErrorCode(err) != booking.EForbidden {
			t.Errorf("%s as the kiosk session's actor: %v, want refused", name, err)
		}
	}
}

// staffActions tries one call of every staff capability as actor.
func staffActions(ctx context.Context, st *db.Store, actor booking.Actor, number string) map[string]error {
	out := map[string]error{}
	_, out["Hold"] = st.Hold(ctx, actor, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "x"})
	_, out["HoldBest"] = st.HoldBest(ctx, actor, booking.HoldBestRequest{ShowID: 1, N: 1, Owner: "x"})
	_, out["Checkout"] = st.Checkout(ctx, actor, booking.CheckoutRequest{HoldID: 1, Owner: "x", IdempotencyKey: "x", Method: booking.Card})
	_, out["PayReservation"] = st.PayReservation(ctx, actor, booking.PayReservationRequest{Number: number, Method: booking.Card, IdempotencyKey: "x"})
	_, out["Reservation"] = st.Reservation(ctx, actor, number)
	_, out["FindReservations"] = st.FindReservations(ctx, actor, "02079460018")
	_, out["Booking"] = st.Booking(ctx, actor, number)
	_, out["FindBookings"] = st.FindBookings(ctx, actor, booking.BookingQuery{Text: "ann"})
	_, out["Cancel"] = st.Cancel(ctx, actor, booking.CancelRequest{Number: number})
	_, out["RefundTickets"] = st.RefundTickets(ctx, actor, booking.RefundRequest{Number: number, Seats: []string{"A1"}})
	_, out["Admit"] = st.Admit(ctx, actor, "X")
	_, out["AddWaitlist"] = st.AddWaitlist(ctx, actor, 1, "Ann", "0123", 1)
	_, out["AddStaff"] = st.AddStaff(ctx, actor, "eve", booking.RoleManager, "1234", nil)
	out["DisableStaff"] = st.DisableStaff(ctx, actor, "demo")
	out["SetPrice"] = st.SetPrice(ctx, actor, booking.TicketType{Code: "adult", Name: "Adult", Price: 1})
	_, out["AddFilm"] = st.AddFilm(ctx, actor, booking.Film{Title: "X", Minutes: 90})
	_, out["OpenShift"] = st.OpenShift(ctx, actor, booking.OpenShiftRequest{Float: 100})
	_, out["Audit"] = st.Audit(ctx, actor, booking.AuditQuery{})
	_, out["ReportTakings"] = st.ReportTakings(ctx, actor, booking.TakingsQuery{})
	_, out["ReportReservations"] = st.ReportReservations(ctx, actor, booking.ReportRange{From: time.Now(), To: time.Now()})
	_, out["Quote"] = st.Quote(ctx, actor, booking.QuoteRequest{ShowID: 1, SeatIDs: []int64{1}})
	return out
}
