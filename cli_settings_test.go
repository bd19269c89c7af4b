package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"boxoffice/escpos/escpostest"
	"boxoffice/internal/clitest"
)

// TestCLI_SettingsOnPaper: settings currency.symbol and locale and a 20 %
// rate on adult tickets make the printed receipt of a 12.50 adult ticket
// read 12,50 € with its VAT line, the shift's Z report carries the same
// tax, and report tax --csv adds up to the cent with it. A bad key or
// value is refused with the rule's message, exit 2, and nothing is set.
func TestCLI_SettingsOnPaper(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	if code, _, errOut := runCLI(t, data, "", "settings", "currency.colour", "red"); code != 2 || !strings.Contains(errOut, `There is no setting "currency.colour"`) {
		t.Fatalf("unknown key: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "settings", "locale", "xx"); code != 2 || !strings.Contains(errOut, "locale is one of") {
		t.Fatalf("bad locale: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "tax", "set", "--type", "adult", "120"); code != 2 || !strings.Contains(errOut, "is not a tax rate") {
		t.Fatalf("bad rate: exit %d %q", code, errOut)
	}
	for _, args := range [][]string{
		{"settings", "currency.symbol", "€"}, {"settings", "locale", "de"}, {"settings", "cinema.name", "Kino Roxy"},
		{"tax", "set", "--type", "adult", "20%"},
	} {
		if code, _, errOut := runCLI(t, data, "", args...); code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
	}
	if code, out, _ := runCLI(t, data, "", "settings", "locale"); code != 0 || out != "de\n" {
		t.Fatalf("settings locale: exit %d %q", code, out)
	}
	if code, out, _ := runCLI(t, data, "", "tax", "list"); code != 0 || !strings.Contains(out, "adult  20 %") {
		t.Fatalf("tax list: exit %d %q", code, out)
	}

	code, out, errOut := runCLI(t, data, "", "sell", show, "F4", "--type", "adult", "--pay", "card", "--allow-single", "--json")
	if code != 0 {
		t.Fatalf("sell: %s", errOut)
	}
	var b clitest.Booking
	if err := json.Unmarshal([]byte(out), &b); err != nil || b.Total != "12.50" {
		t.Fatalf("sell json %q: %v", out, err)
	}
	pr := escpostest.NewPrinter(t)
	if code, _, errOut := runCLI(t, data, "", "print", b.Number, "--printer", pr.URL()); code != 0 {
		t.Fatalf("print: %d %q", code, errOut)
	}
	receipt := printedTexts(t, pr)
	for _, want := range []string{"Kino Roxy", "12,50 €", "VAT 20 % 2,08 €"} {
		if !slices.ContainsFunc(receipt, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("the receipt has no %q:\n%s", want, strings.Join(receipt, "\n"))
		}
	}

	code, csv, errOut := runCLI(t, data, "", "report", "tax", "--csv")
	if code != 0 || !strings.Contains(csv, "\n20,1,0,12.50,0.00,12.50,2.08,10.42\n") || !strings.Contains(csv, "total,1,0,12.50,0.00,12.50,2.08,10.42") {
		t.Fatalf("report tax: exit %d %q %s", code, csv, errOut)
	}

	// The Z report of the shift prints the same tax, in the same money.
	code, out, errOut = runCLI(t, data, "", "shift", "close", "--counted", "100", "--json")
	var z struct {
		Shift struct {
			ID int64 `json:"id"`
		} `json:"shift"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &z) != nil {
		t.Fatalf("shift close: %d %q %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "print", "--shift", jsonNumber(z.Shift.ID), "--printer", pr.URL()); code != 0 {
		t.Fatalf("print --shift: %d %q", code, errOut)
	}
	zr := printedTexts(t, pr)
	if !slices.ContainsFunc(zr, func(l string) bool { return strings.Contains(l, "VAT 20 % 2,08 €") }) {
		t.Errorf("the Z report has no VAT 20 %% 2,08 €:\n%s", strings.Join(zr, "\n"))
	}
}

// printedTexts is the text lines of the printer's next job.
func printedTexts(t *testing.T, pr *escpostest.Printer) []string {
	t.Helper()
	cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return escpostest.Texts(cmds)
}
