package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"boxoffice/internal/clitest"
)

// A 30.00 gift card and 24 customers at 24 counters at once, each its own
// process on the one file, each buying a 12.50 seat with the card:
// exactly two paid, 22 refused with exit code 3 naming the balance, 5.00
// left; then two cancels of one of the two at once: one cancels, the card
// holds 17.50, and check finds every balance its ledger's sum.
func TestCLI_GiftCardTwentyFourProcesses(t *testing.T) {
	t.Parallel()
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "giftcard", "issue", "30", "--json")
	var card struct{ Number, Balance string }
	if err := json.Unmarshal([]byte(out), &card); code != 0 || err != nil || card.Balance != "30.00" {
		t.Fatalf("giftcard issue: %d %v %s %s", code, err, out, errOut)
	}
	seats := standardSeatLabels(t, data, show, 24)
	codes := make([]int, len(seats))
	outs := make([]string, len(seats))
	var wg sync.WaitGroup
	run := func(i int, args ...string) {
		out, err := exec.Command(bin, append([]string{"--data", data}, args...)...).CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			codes[i] = exit.ExitCode()
		} else if err != nil {
			codes[i] = -1
		}
		outs[i] = string(out)
	}
	for i, s := range seats {
		wg.Go(func() {
			run(i, "sell", show, s, "--pay", "giftcard", "--card", card.Number, "--allow-single", "--json")
		})
	}
	wg.Wait()
	var paid []string
	for i, code := range codes {
		switch {
		case code == 0:
			var b clitest.Booking
			if err := json.Unmarshal([]byte(outs[i]), &b); err != nil || b.Total != "12.50" {
				t.Fatalf("sale %d: %v %s", i, err, outs[i])
			}
			paid = append(paid, b.Number)
		case code == 3 && strings.Contains(outs[i], "holds 5.00; 12.50 is due."):
		default:
			t.Errorf("process %d: exit %d\n%s", i, code, outs[i])
		}
	}
	if len(paid) != 2 {
		t.Fatalf("%d sales paid by a 30.00 card, want 2", len(paid))
	}
	if b := cardBalance(t, data, card.Number); b != "5.00" {
		t.Fatalf("balance %s after two sales, want 5.00", b)
	}
	codes[0], codes[1] = 0, 0
	for i := range 2 {
		wg.Go(func() { run(i, "cancel", paid[0], "--reason", "race") })
	}
	wg.Wait()
	if codes[0]+codes[1] != 3 || codes[0]*codes[1] != 0 {
		t.Fatalf("two cancels at once: exit %d and %d\n%s\n%s", codes[0], codes[1], outs[0], outs[1])
	}
	if b := cardBalance(t, data, card.Number); b != "17.50" {
		t.Fatalf("balance %s after the cancel, want 17.50", b)
	}
	if code, out, errOut := runCLI(t, data, "", "check"); code != 0 {
		t.Fatalf("check: %s %s", out, errOut)
	}
}

// cardBalance is giftcard balance NUMBER --json's .balance.
func cardBalance(t *testing.T, data, number string) string {
	t.Helper()
	code, out, errOut := runCLI(t, data, "", "giftcard", "balance", number, "--json")
	var c struct{ Balance string }
	if err := json.Unmarshal([]byte(out), &c); code != 0 || err != nil {
		t.Fatalf("giftcard balance: %d %v %s %s", code, err, out, errOut)
	}
	return c.Balance
}

// standardSeatLabels are the first n standard seats of show.
func standardSeatLabels(t *testing.T, data, show string, n int) []string {
	t.Helper()
	_, out, _ := runCLI(t, data, "", "seats", show, "--json")
	var m struct {
		Seats []struct{ Seat, Kind, State string }
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("seats: %v", err)
	}
	var labels []string
	for _, s := range m.Seats {
		if s.Kind == "standard" && s.State == "free" && len(labels) < n {
			labels = append(labels, s.Seat)
		}
	}
	if len(labels) < n {
		t.Fatalf("%d standard seats free, want %d", len(labels), n)
	}
	return labels
}

// giftcard's commands and sell's gift-card payment refuse what they can
// before the store opens (exit 2) and a card short with exit code 3.
func TestCLI_GiftCardRefusals(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	_, out, _ := runCLI(t, data, "", "giftcard", "issue", "5", "--pay", "card", "--json")
	var card struct{ Number string }
	if err := json.Unmarshal([]byte(out), &card); err != nil {
		t.Fatalf("issue: %v %s", err, out)
	}
	for _, c := range []struct {
		code int
		args []string
		says string
	}{
		{2, []string{"giftcard", "issue", "0.50"}, "A gift card is for 1.00 to 1000.00, not 0.50."},
		{2, []string{"giftcard", "issue", "lots"}, "AMOUNT"},
		{2, []string{"giftcard", "balance", "1234"}, "A gift card number is 16 digits; 4 typed."},
		{2, []string{"giftcard", "balance", "6012 3456 7890 1235"}, "is not a gift card number: check the digits."},
		{4, []string{"giftcard", "balance", "6012 3456 7890 1234"}, "No gift card 6012 3456 7890 1234."},
		{2, []string{"sell", show, "C5", "--pay", "giftcard"}, "--pay giftcard needs --card NUMBER"},
		{2, []string{"sell", show, "C5", "--card", card.Number}, "--card and --rest go with --pay giftcard"},
		{2, []string{"sell", show, "C5", "--pay", "giftcard", "--card", card.Number, "--rest", "cheque"}, "--rest must be cash or card"},
		{3, []string{"sell", show, "C5", "--pay", "giftcard", "--card", card.Number, "--allow-single"}, "holds 5.00; 12.50 is due. Pay the rest by cash or card."},
	} {
		code, out, errOut := runCLI(t, data, "", c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.says) {
			t.Errorf("%v: exit %d, want %d; %q %q (want %q)", c.args, code, c.code, out, errOut, c.says)
		}
	}
	code, out, errOut := runCLI(t, data, "", "sell", show, "C5", "--pay", "giftcard", "--card", card.Number, "--rest", "cash", "--tendered", "10", "--allow-single")
	if code != 0 || !strings.Contains(out, "Paid     5.00 by giftcard") || !strings.Contains(out, "Paid     10.00 cash, change due 2.50") {
		t.Fatalf("the rest in cash: %d %s %s", code, out, errOut)
	}
	if b := cardBalance(t, data, card.Number); b != "0.00" {
		t.Fatalf("balance %s, want 0.00", b)
	}
}

// TestCLI_GiftCardForACustomer: giftcard issue --customer puts the card
// on the account, and customer show lists it by its last four digits
// only; a customer who does not exist is refused (exit 4) and nothing is
// sold.
func TestCLI_GiftCardForACustomer(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	copyDemo(t, data)
	if code, _, errOut := runCLI(t, data, "", "customer", "add", "--name", "Ann Lee", "--email", "ann@example.com"); code != 0 {
		t.Fatalf("customer add: %s", errOut)
	}
	code, out, errOut := runCLI(t, data, "", "giftcard", "issue", "25", "--pay", "card", "--customer", "1", "--json")
	var card struct{ Number string }
	if err := json.Unmarshal([]byte(out), &card); code != 0 || err != nil || len(card.Number) != 16 {
		t.Fatalf("giftcard issue --customer: %d %v %s %s", code, err, out, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "giftcard", "issue", "25", "--pay", "card", "--customer", "9"); code != 4 || !strings.Contains(errOut, "9") {
		t.Fatalf("a card for no such customer: exit %d, %s", code, errOut)
	}
	code, out, errOut = runCLI(t, data, "", "customer", "show", "1")
	if code != 0 || !strings.Contains(out, "gift card") || !strings.Contains(out, "…"+card.Number[12:]) || strings.Contains(out, card.Number[:12]) ||
		!strings.Contains(out, "balance 25.00") {
		t.Fatalf("customer show: %d %s %s", code, out, errOut)
	}
}
