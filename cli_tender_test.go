package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/internal/clitest"
)

// sell --part: a 25.00 sale paid 10.00 by card and the rest in cash
// from 20.00 handed over: two payments, 5.00 change, the X report
// expecting the float and 15.00 cash; its --key run again is the same
// booking; the cancel gives each part back what it paid. Bad parts are
// refused with exit code 2, seats left free.
func TestCLI_SellInParts(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	seats := standardSeatLabels(t, data, show, 2)
	sell := append([]string{"sell", show}, seats...)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--part", "cheque"}, `"cheque" is not a way of paying: cash, card or giftcard`},
		{[]string{"--part", "card:lots"}, `for flag -part: "lots" is not an amount`},
		{[]string{"--part", "card:0"}, "leave it out (--part card) for the rest"},
		{[]string{"--part", "card:5", "--part", "card"}, "Each way of paying once a sale"},
		{[]string{"--part", "card", "--part", "cash"}, "Only one part can be the rest."},
		{[]string{"--part", "card:5", "--part", "cash", "--pay", "card"}, "leave out --pay and --rest"},
		{[]string{"--part", "giftcard", "--part", "cash:5"}, "--part giftcard needs --card NUMBER"},
		{[]string{"--part", "card:5", "--tendered", "20"}, "Cash tendered goes with a cash part."},
		{[]string{"--part", "card:30", "--part", "cash"}, "The parts add up to 30.00, more than the total 25.00."},
		{[]string{"--part", "card:10", "--part", "cash:5"}, "The parts add up to 15.00, short of the total 25.00."},
	} {
		code, out, errOut := runCLI(t, data, "", append(sell, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: exit %d, want 2; %q %q (want %q)", c.args, code, out, errOut, c.says)
		}
	}
	paid := append(sell, "--part", "card:10.00", "--part", "cash", "--tendered", "20.00", "--key", "split-1", "--json")
	code, out, errOut := runCLI(t, data, "", paid...)
	var b clitest.Booking
	if err := json.Unmarshal([]byte(out), &b); code != 0 || err != nil || b.Total != "25.00" {
		t.Fatalf("sell in parts: %d %v %s %s", code, err, out, errOut)
	}
	if got := paymentsOf(b); got != "sale card 10.00 0.00 0.00; sale cash 15.00 20.00 5.00" {
		t.Fatalf("payments %s", got)
	}
	if code, out, errOut := runCLI(t, data, "", paid...); code != 0 || !strings.Contains(out, b.Number) {
		t.Fatalf("the same --key again: %d %s %s", code, out, errOut)
	}
	shift := openShiftID(t, data)
	if x := xReport(t, data, shift); x["cash_sales"] != "15.00" || x["card_sales"] != "10.00" || x["expected"] != "115.00" {
		t.Fatalf("X report after the sale: %v", x)
	}
	code, out, errOut = runCLI(t, data, "", "cancel", b.Number, "--reason", "wrong film", "--json")
	var c clitest.Booking
	if err := json.Unmarshal([]byte(out), &c); code != 0 || err != nil {
		t.Fatalf("cancel: %d %v %s %s", code, err, out, errOut)
	}
	back := map[string]int{}
	for _, p := range c.Payments {
		var cents int
		fmt.Sscanf(strings.Replace(p.Amount, ".", "", 1), "%d", &cents)
		if p.Kind == "refund" {
			back[p.Method] += cents
		}
	}
	if back["card"] != 1000 || back["cash"] != 1500 || len(back) != 2 {
		t.Fatalf("cancel gave back %s", paymentsOf(c))
	}
	if x := xReport(t, data, shift); x["cash_refunds"] != "15.00" || x["card_refunds"] != "10.00" || x["expected"] != "100.00" {
		t.Fatalf("X report after the cancel: %v", x)
	}
}

// paymentsOf is a booking's payments as "kind method amount tendered
// change", in order.
func paymentsOf(b clitest.Booking) string {
	var out []string
	for _, p := range b.Payments {
		out = append(out, fmt.Sprintf("%s %s %s %s %s", p.Kind, p.Method, p.Amount, p.Tendered, p.Change))
	}
	return strings.Join(out, "; ")
}

// openShiftID is the id of the command line's open shift.
func openShiftID(t *testing.T, data string) string {
	t.Helper()
	code, out, errOut := runCLI(t, data, "", "shift", "list", "--open", "--json")
	var shifts []struct{ ID int64 }
	if err := json.Unmarshal([]byte(out), &shifts); code != 0 || err != nil || len(shifts) != 1 {
		t.Fatalf("shift list: %d %v %s %s", code, err, out, errOut)
	}
	return fmt.Sprint(shifts[0].ID)
}

// xReport is report shift ID --json's figures.
func xReport(t *testing.T, data, shift string) map[string]any {
	t.Helper()
	code, out, errOut := runCLI(t, data, "", "report", "shift", shift, "--json")
	var x map[string]any
	if err := json.Unmarshal([]byte(out), &x); code != 0 || err != nil {
		t.Fatalf("report shift: %d %v %s %s", code, err, out, errOut)
	}
	return x
}
