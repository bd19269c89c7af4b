package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// execCLI runs the built binary on a data dir and returns its exit code
// and what it wrote (stdout and stderr together).
func execCLI(bin, data string, args ...string) (int, string) {
	out, err := exec.Command(bin, append([]string{"--data", data}, args...)...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		return -1, err.Error()
	}
	return 0, string(out)
}

// 24 sign-ups at 24 counters at once, each its own process on the one
// file, for one address in three spellings: one customer is made, the
// other 23 are refused with exit code 3 naming the customer the address
// belongs to, and a search finds the one.
func TestCLI_CustomerAddTwentyFourProcesses(t *testing.T) {
	t.Parallel()
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	if code, _, errOut := runCLI(t, data, "", "init", "--no-demo"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	const racers = 24
	spellings := []string{"Ann@Example.com", " ann@example.com ", "ANN@EXAMPLE.COM"}
	codes := make([]int, racers)
	outs := make([]string, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			args := []string{"customer", "add", "--name", fmt.Sprintf("Ann %c", 'A'+i), "--email", spellings[i%3]}
			if i%2 == 1 {
				args = append(args, "--json") // half answer as text, half as JSON
			}
			codes[i], outs[i] = execCLI(bin, data, args...)
		})
	}
	wg.Wait()
	var id int64
	var name string
	winners := 0
	for i, code := range codes {
		if code != 0 {
			continue
		}
		winners++
		if m := regexp.MustCompile(`^Added customer (\d+): (Ann [A-X]) <ann@example.com>\.\n$`).FindStringSubmatch(outs[i]); m != nil {
			fmt.Sscan(m[1], &id)
			name = m[2]
			continue
		}
		var made struct {
			ID    int64  `json:"id"`
			Name  string `json:"name"`
			Email string `json:"email"`
		}
		if err := json.Unmarshal([]byte(outs[i]), &made); err != nil || made.Email != "ann@example.com" {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		id, name = made.ID, made.Name
	}
	if winners != 1 || id == 0 {
		t.Fatalf("%d customers made, want 1", winners)
	}
	msg := fmt.Sprintf("That e-mail address belongs to customer %d (%s).", id, name)
	refused := 0
	for i, code := range codes {
		if code == 0 {
			continue
		}
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		text := outs[i] == "boxoffice: "+msg+"\n"
		asJSON := json.Unmarshal([]byte(outs[i]), &e) == nil && e.Error == "conflict" && e.Message == msg
		if code != 3 || !text && !asJSON {
			t.Errorf("process %d: exit %d %q, want 3 %q", i, code, outs[i], msg)
			continue
		}
		refused++
	}
	if refused != racers-1 {
		t.Fatalf("%d refused naming customer %d, want %d", refused, id, racers-1)
	}
	code, out := execCLI(bin, data, "customer", "find", "ANN@example.com", "--json")
	var found []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &found); code != 0 || err != nil || len(found) != 1 || found[0].ID != id {
		t.Fatalf("customer find: exit %d %v %s", code, err, out)
	}
}

// The watchlist and erasure from the command line: two watchers of a film
// with no show, its first two shows added by two processes at once, each
// watcher listed once to call; a sale made a customer's, the customer
// erased: the booking keeps its money and loses the name.
func TestCLI_WatchAndErase(t *testing.T) {
	t.Parallel()
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	if code, _, errOut := runCLI(t, data, "", "init"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	code, out, errOut := runCLI(t, data, "", "film", "add", "Awaited", "--minutes", "100")
	film := regexp.MustCompile(`Added film (\d+)`).FindStringSubmatch(out)
	if code != 0 || film == nil {
		t.Fatalf("film add: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "customer", "add", "--name", "Ann Lee", "--email", "ann@example.com", "--phone", "07700 900123"); code != 0 {
		t.Fatalf("customer add: %s", errOut)
	}
	for _, args := range [][]string{{"--name", "Bo Diaz", "--phone", "0123 456789"}, {"--customer", "1"}} {
		if code, _, errOut := runCLI(t, data, "", append([]string{"watch", film[1]}, args...)...); code != 0 {
			t.Fatalf("watch %v: %s", args, errOut)
		}
	}
	at := time.Now().AddDate(0, 0, 9).Format("2006-01-02")
	var wg sync.WaitGroup
	for _, hall := range []string{"Grand", "Studio"} {
		wg.Go(func() {
			if code, out := execCLI(bin, data, "show", "add", "--film", film[1], "--hall", hall, "--at", at+" 19:30"); code != 0 {
				t.Errorf("show add in %s: %d %s", hall, code, out)
			}
		})
	}
	wg.Wait()
	_, out, _ = runCLI(t, data, "", "watch", "list", film[1], "--json")
	var list []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Show   int64  `json:"show"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 2 || list[0].Name != "Bo Diaz" || list[1].Name != "Ann Lee" ||
		list[0].Status != "to call" || list[1].Status != "to call" || list[0].Show == 0 || list[0].Show != list[1].Show {
		t.Fatalf("watch list: %v %s", err, out)
	}
	_, out, _ = runCLI(t, data, "", "watch", "calls")
	if strings.Count(out, "Bo Diaz") != 1 || strings.Count(out, "Ann Lee") != 1 {
		t.Fatalf("watch calls:\n%s", out)
	}

	code, out, errOut = runCLI(t, data, "", "sell", strconv.FormatInt(list[0].Show, 10), "A1", "A2", "--pay", "card", "--customer", "1", "--name", "Ann Lee", "--phone", "07700 900123", "--json")
	var sold clitest.Booking
	if err := json.Unmarshal([]byte(out), &sold); code != 0 || err != nil || sold.Customer != "Ann Lee" {
		t.Fatalf("sell: %d %v %s %s", code, err, out, errOut)
	}
	if code, out, errOut := runCLI(t, data, "", "customer", "erase", "1"); code != 0 || !strings.Contains(out, "1 bookings") {
		t.Fatalf("erase: %d %s %s", code, out, errOut)
	}
	_, out, _ = runCLI(t, data, "", "booking", sold.Number, "--json")
	var kept clitest.Booking
	if err := json.Unmarshal([]byte(out), &kept); err != nil || kept.Total != sold.Total || kept.Status != "confirmed" || strings.Contains(out, "Ann") {
		t.Fatalf("the booking after erasure: %v %s", err, out)
	}
	if code, _, errOut := runCLI(t, data, "", "customer", "erase", "1"); code != 3 {
		t.Fatalf("erased twice: %d %s", code, errOut)
	}
	if code, out, errOut := runCLI(t, data, "", "check"); code != 0 {
		t.Fatalf("check: %s %s", out, errOut)
	}
}
