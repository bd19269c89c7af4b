package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// show cancel at the command line: bad input exits non-zero with a
// message and writes nothing; a cancel prints the contact list, text and
// JSON, cleaned of control characters; the show then sells nothing.
func TestCLI_ShowCancel(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	_, out, _ := runCLI(t, data, "", "sell", show, "C1", "C2", "--pay", "card", "--name", "Ann \x1b]0;pwned\x07Lee", "--phone", "0123", "--json")
	var b clitest.Booking
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("sell: %v %q", err, out)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"show", "cancel", show}, 2, "Say why the show is cancelled"},
		{[]string{"show", "cancel", show, "--reason", " "}, 2, "Say why the show is cancelled"},
		{[]string{"show", "cancel", "999999", "--reason", "projector"}, 4, "There is no show 999999."},
		{[]string{"show", "cancel", "x", "--reason", "projector"}, 2, "SHOW must be a show id"},
		{[]string{"show", "sales-close", show, "2h"}, 2, "Sales close between"},
		{[]string{"show", "sales-close", show}, 2, "usage: boxoffice show sales-close"},
	} {
		code, _, errOut := runCLI(t, data, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args, code, errOut, c.code, c.msg)
		}
	}
	if _, out, _ := runCLI(t, data, "", "booking", b.Number, "--json"); !strings.Contains(out, `"status": "confirmed"`) {
		t.Fatalf("a refused cancel touched the booking: %s", out)
	}

	code, out, errOut := runCLI(t, data, "", "show", "cancel", show, "--reason", "Projector \x1b[31mbroken")
	if code != 0 {
		t.Fatalf("show cancel: %d %s", code, errOut)
	}
	if strings.ContainsRune(out, '\x1b') || !strings.Contains(out, "Reason: Projector [31mbroken") || !strings.Contains(out, b.Number) ||
		!strings.Contains(out, "Ann ]0;pwnedLee") || !strings.Contains(out, "1 booking refunded, 25.00 in all (1 by this run).") {
		t.Fatalf("show cancel printed:\n%s", out)
	}
	code, out, _ = runCLI(t, data, "", "show", "cancel", show, "--reason", "again", "--json")
	var res struct {
		Status      string `json:"status"`
		RefundedNow int    `json:"refunded_now"`
		Contacts    []struct {
			Booking, Name, Phone, Refunded string
		} `json:"contacts"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("again: %d %v %q", code, err, out)
	}
	if res.Status != "cancelled" || res.RefundedNow != 0 || len(res.Contacts) != 1 || res.Contacts[0].Booking != b.Number ||
		res.Contacts[0].Refunded != "25.00" || res.Contacts[0].Phone != "0123" {
		t.Fatalf("again: %+v", res)
	}
	if code, _, errOut := runCLI(t, data, "", "sell", show, "D1", "--pay", "card"); code != 2 || !strings.Contains(errOut, "was cancelled: Projector [31mbroken.") {
		t.Fatalf("sell on a cancelled show: %d %q", code, errOut)
	}
	if _, out, _ := runCLI(t, data, "", "seats", show); !strings.Contains(out, "Cancelled — Projector [31mbroken\n") {
		t.Errorf("seats of the cancelled show:\n%s", out)
	}
	tomorrow := time.Now().AddDate(0, 0, 1).Format("2006-01-02")
	_, out, _ = runCLI(t, data, "", "shows", "--date", tomorrow, "--json")
	if !strings.Contains(out, `"status": "cancelled",`) || !strings.Contains(out, `"cancel_reason": "Projector [31mbroken"`) || strings.Count(out, `"status"`) != 1 {
		t.Errorf("shows --json:\n%s", out)
	}
	if code, out, _ := runCLI(t, data, "", "show", "sales-close", "--default", "20m"); code != 0 || !strings.Contains(out, "20 min after the start") {
		t.Fatalf("default sales close: %d %q", code, out)
	}
}
