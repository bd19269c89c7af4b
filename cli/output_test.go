package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
)

var update = flag.Bool("update", false, "rewrite the goldens under testdata/")

// A UTF-8 character split across two writes arrives whole; steering
// characters never arrive.
func TestCleanWriter(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := newCleanWriter(&out)
	text := "é\u202e中\x1b[2Jok\n"
	for i := 0; i < len(text); i++ {
		w.Write([]byte{text[i]})
	}
	if got := out.String(); got != "é中[2Jok\n" {
		t.Fatalf("got %q", got)
	}
}

// TestGolden_WaitlistStates: a waiting list in every state, as text and
// JSON. (The states past waiting depend on the sweeper, which a command
// line run does not wait for, so they are printed from fixed entries.)
func TestGolden_WaitlistStates(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)
	at := func(min int) *time.Time { x := now.Add(time.Duration(min) * time.Minute); return &x }
	list := []booking.WaitlistEntry{
		{ID: 1, Name: "Ann Lee", Phone: "0123 456", Seats: 2},
		{ID: 2, Name: "Bob\u202e", Phone: "0456", Seats: 1, NotifiedAt: at(-5)},
		{ID: 3, Name: "Cy", Phone: "0789", Seats: 3, NotifiedAt: at(-10), CalledAt: at(-4), CalledBy: "Maria\x1b[2J"},
		{ID: 4, Name: "Di", Phone: "0111", Seats: 1, NotifiedAt: at(-40), CalledAt: at(-30), CalledBy: "demo", Bought: true},
		{ID: 5, Name: "Ed", Phone: "0222", Seats: 2, NotifiedAt: at(-20)},
	}
	var transcript bytes.Buffer
	for _, jsonOut := range []bool{false, true} {
		var out, errb bytes.Buffer
		c := &env{stdout: newCleanWriter(&out), stderr: newCleanWriter(&errb), jsonOut: jsonOut, now: func() time.Time { return now }}
		c.print(waitlistView{list, now})
		c.print(waitlistView{nil, now})
		fmt.Fprintf(&transcript, "--- json %v\n%s%s\n", jsonOut, out.String(), errb.String())
	}
	path := filepath.Join("testdata", "waitlist-states.golden")
	if *update {
		if err := os.WriteFile(path, transcript.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cli -run Golden -update)", err)
	}
	if !bytes.Equal(transcript.Bytes(), want) {
		t.Errorf("the waiting list prints differently from %s:\n%s", path, lineDiff(string(want), transcript.String()))
	}
}

// lineDiff names the first lines where want and got part.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 12; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d\n  want %q\n  got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
