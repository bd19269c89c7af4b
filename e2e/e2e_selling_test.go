package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"boxoffice/internal/clitest"
)

// Must show 3 with the shipped binary in an 80×24 terminal: a party of two
// adults and two children sells by card in at most eight keys from the
// shows list — the show, the party (2a2c), enter for the best seats and
// the checkout, c for card, enter to sell — and `boxoffice booking N
// --json` reads back two adult and two child tickets at their total.
func TestE2E_MixedPartyInEightKeys(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	tm := startTmux(t, 80, 24, "env", "BOXOFFICE_DATA="+data, "TERM=xterm-256color", bin)
	tm.signIn()
	// The count starts on tomorrow's list, the cursor on its first show.
	tm.tomorrow("Grand")

	keys := 0
	press := func(k ...string) {
		keys += len(k)
		tm.send(k...)
	}
	press("Enter")
	tm.waitFor("SCREEN")
	press("2", "a", "2", "c")
	tm.waitFor("Party: 2 Adult · 2 Child")
	press("Enter")
	tm.waitFor("Checkout", "Total")
	press("c")
	tm.waitFor("[ Sell 4 tickets", "by card ]")
	press("Enter")
	screen := tm.waitFor("Sold BO-")
	if keys > 8 {
		t.Fatalf("the sale took %d keys, want at most 8", keys)
	}
	t.Logf("2 adults + 2 children by card: %d keys from the shows list", keys)

	number := regexp.MustCompile(`BO-[0-9A-Z]+`).FindString(screen)
	out, err := exec.Command(bin, "--data", data, "booking", number, "--json").Output()
	if err != nil {
		t.Fatalf("booking %s: %v", number, err)
	}
	var b clitest.Booking
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	types := map[string]int{}
	for _, tk := range b.Tickets {
		types[tk.Type]++
	}
	// Best available keeps a party out of premium seats: standard adult
	// 12.50 and child 8.50, as the demo prices them.
	if types["adult"] != 2 || types["child"] != 2 || len(b.Tickets) != 4 || b.Total != "42.00" ||
		len(b.Payments) != 1 || b.Payments[0].Method != "card" || b.Payments[0].Amount != "42.00" {
		t.Fatalf("booking %s: types %v, total %s, payments %+v", number, types, b.Total, b.Payments)
	}
}
