package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_Reservation: a clerk reserves for a phone customer, finds the
// reservation by phone and takes payment in one step; the booking keeps
// the number; `report reservations` counts it; hostile input exits 2
// before anything is written.
func TestCLI_Reservation(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	for name, args := range map[string][]string{
		"EscapeName": {"reservation", "make", show, "D2", "--name", "\x1b]0;owned\x07", "--phone", "0123456789"},
		"NoPhone":    {"reservation", "make", show, "D2", "--name", "Ann"},
		"LongName":   {"reservation", "make", show, "D2", "--name", strings.Repeat("n", 61), "--phone", "0123456789"},
	} {
		if code, _, errOut := runCLI(t, data, "", args...); code != 2 || errOut == "" {
			t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
		}
	}
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	var holds int
	if err := dbh.QueryRow(`SELECT count(*) FROM holds`).Scan(&holds); err != nil || holds != 0 {
		t.Fatalf("%d holds after refused reservations (%v)", holds, err)
	}
	code, out, errOut := runCLI(t, data, "", "reservation", "make", show, "D2", "D3", "--name", "Ann Lee", "--phone", "020 7946 0018", "--json")
	if code != 0 {
		t.Fatalf("make: %d %s", code, errOut)
	}
	var r struct{ Number, Status, Source string }
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Status != "reserved" || r.Source != "counter" {
		t.Fatalf("make: %+v %v %s", r, err, out)
	}
	if code, out, _ := runCLI(t, data, "", "reservation", "find", "020-7946-0018"); code != 0 || !strings.Contains(out, r.Number) {
		t.Fatalf("find by phone: %d %s", code, out)
	}
	if code, out, errOut := runCLI(t, data, "", "reservation", "pay", strings.ToLower(r.Number), "--pay", "card"); code != 0 || !strings.Contains(out, r.Number+" (confirmed)") {
		t.Fatalf("pay: %d %s %s", code, out, errOut)
	}
	if code, _, _ := runCLI(t, data, "", "reservation", "pay", r.Number, "--pay", "card"); code == 0 {
		t.Fatal("a second payment succeeded")
	}
	code, out, _ = runCLI(t, data, "", "report", "reservations", "--csv")
	if code != 0 || !strings.Contains(out, "counter,1,1,0,0") || !strings.Contains(out, "total,1,1,0,0") {
		t.Fatalf("report: %d %s", code, out)
	}
}
