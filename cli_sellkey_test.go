package main

import (
	"encoding/json"
	"strings"
	"testing"

	"boxoffice/internal/clitest"
)

// A --key used again for another sale is refused (exit 3) and says which
// booking the key made; the same command again still answers with that
// booking, and nothing more is sold either way. Before, any sale under a
// used key answered with the first booking, exit 0.
func TestCLI_SellKeyReused(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "sell", show, "C3", "C4", "--key", "till-7", "--json")
	var first clitest.Booking
	if code != 0 || json.Unmarshal([]byte(out), &first) != nil {
		t.Fatalf("first sale: %d %s", code, errOut)
	}
	for _, args := range [][]string{
		{"sell", show, "C5"},                          // other seats
		{"sell", show, "C3"},                          // fewer
		{"sell", show, "C3", "C4", "--type", "child"}, // other tickets
		{"sell", show, "C3", "C4", "--pay", "card"},   // paid otherwise
		{"sell", show, "--best", "2"},                 // best 2, not C3 C4: the same count is a retry
	} {
		code, _, errOut := runCLI(t, data, "", append(args, "--key", "till-7")...)
		if args[2] == "--best" {
			if code != 0 {
				t.Errorf("%v: exit %d %s", args, code, errOut)
			}
			continue
		}
		if code != exitConflict || !strings.Contains(errOut, `The key "till-7" already made booking `+first.Number) || !strings.Contains(errOut, "nothing was sold") {
			t.Errorf("%v under a used key: exit %d %q", args, code, errOut)
		}
	}
	code, out, errOut = runCLI(t, data, "", "sell", show, "C4", "C3", "--key", "till-7", "--json")
	var again clitest.Booking
	if code != 0 || json.Unmarshal([]byte(out), &again) != nil || again.Number != first.Number {
		t.Fatalf("the same sale again: %d %q %s, want %s", code, again.Number, errOut, first.Number)
	}
	code, out, _ = runCLI(t, data, "", "seats", show, "--json")
	if code != 0 || strings.Count(out, `"sold"`) != 2 {
		t.Errorf("seats sold after the refusals: %d %s", strings.Count(out, `"sold"`), out)
	}
}
