package booking

import (
	"strings"
	"testing"
	"time"
)

func TestNormalPhone(t *testing.T) {
	for _, c := range []struct {
		phone, country, want, err string
	}{
		{"+44 7700 900123", "", "447700900123", ""},
		{"0044 7700900123", "", "447700900123", ""},
		{"07700 900123", "", "447700900123", ""},
		{"07700 900123", "44", "447700900123", ""},
		{"+44 (0)7700 900123", "", "447700900123", ""},
		{"(07700) 900-123", "", "447700900123", ""},
		{"06 12 34 56 78", "33", "33612345678", ""},
		{"+33 6 12 34 56 78", "44", "33612345678", ""},
		{"7700 900123", "", "7700900123", ""}, // no prefix: as typed
		{"020 7946 0018", "", "442079460018", ""},
		{"0" + strings.Repeat("9", 14), "", "", "6 to 15 digits"}, // 16 digits once the 0 is 44
		{"00 12345", "", "", "6 to 15 digits"},
		{"07700 9OO123", "", "", "in digits"},
		{"", "", "", "Type your phone number."},
	} {
		got, err := NormalPhone(c.phone, c.country)
		if c.err != "" {
			if err == nil || !strings.Contains(ErrorMessage(err), c.err) || ErrorCode(err) != EInvalid {
				t.Errorf("NormalPhone(%q, %q) = %q, %v; want an error with %q", c.phone, c.country, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("NormalPhone(%q, %q) = %q, %v; want %q", c.phone, c.country, got, err, c.want)
		}
	}
}

func TestValidPhoneCountry(t *testing.T) {
	for cc, ok := range map[string]bool{"": true, "1": true, "44": true, "353": true, "0": false, "044": false, "4444": false, "4a": false, "+44": false} {
		if err := ValidPhoneCountry(cc); (err == nil) != ok {
			t.Errorf("ValidPhoneCountry(%q) = %v", cc, err)
		}
	}
}

// TestGuessLimit_Try walks one key through the schedule: five tries, a
// minute's pause that refuses the right answer too, then five more and
// two minutes, and so on up to the cap; a quiet key starts again.
func TestGuessLimit_Try(t *testing.T) {
	l := GuessLimit{Free: 5, FirstPause: time.Minute, MaxPause: 10 * time.Minute, Forget: time.Hour}
	now := time.Date(2026, 3, 13, 10, 0, 0, 0, time.UTC)
	var g Guesses
	counted := 0
	var pauses []time.Duration
	for range 60 {
		next, wait := l.Try(g, now)
		if wait > 0 {
			if next.Tries != g.Tries || next.Until != g.Until || !next.Last.Equal(now) {
				t.Fatalf("a refused try changed the count: %+v -> %+v", g, next)
			}
			now = now.Add(wait) // the guesser waits the pause out
		} else {
			counted++
			if next.Tries == l.Free {
				pauses = append(pauses, next.Until.Sub(now))
			}
		}
		g = next
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute, 10 * time.Minute}
	if len(pauses) < len(want) {
		t.Fatalf("pauses %v, want at least %v", pauses, want)
	}
	for i, w := range want {
		if pauses[i] != w {
			t.Fatalf("pauses %v, want %v first", pauses, want)
		}
	}
	if counted != 5*len(pauses) {
		t.Errorf("%d tries counted over %d pauses", counted, len(pauses))
	}

	// Tries at once: the fifth begins the pause, the sixth is refused.
	g = Guesses{}
	for i := 1; i <= 6; i++ {
		next, wait := l.Try(g, now)
		if (wait > 0) != (i == 6) {
			t.Fatalf("try %d at once: wait %v", i, wait)
		}
		g = next
	}
	// Quiet for Forget after the pause ends: forgotten.
	next, wait := l.Try(g, g.Until.Add(l.Forget))
	if wait != 0 || next.Tries != 1 || next.Pauses != 0 {
		t.Fatalf("after an hour's quiet: %+v, %v", next, wait)
	}
	// Quiet for less: the next pause is longer.
	g, _ = l.Try(g, g.Until.Add(time.Second))
	for range 4 {
		g, _ = l.Try(g, g.Last)
	}
	if g.Pauses != 2 || g.Until.Sub(g.Last) != 2*time.Minute {
		t.Fatalf("second pause %+v", g)
	}
	// A pause ending further ahead than MaxPause: the clock was put
	// back; the pause is over.
	back := g.Last.Add(-time.Hour)
	if _, wait := l.Try(g, back); wait != 0 {
		t.Fatalf("clock put back an hour: still paused %v", wait)
	}
	if l.Keep(g) != g.Until.Add(l.Forget) {
		t.Errorf("Keep %v", l.Keep(g))
	}
	if u, last := g.MS(); !sameGuesses(GuessesMS(g.Tries, g.Pauses, u, last), g) {
		t.Errorf("GuessesMS(MS()) is not g: %+v", GuessesMS(g.Tries, g.Pauses, u, last))
	}
	if GuessesMS(0, 0, 0, 0) != (Guesses{}) {
		t.Error("zero milliseconds are not the zero time")
	}
}

func sameGuesses(a, b Guesses) bool {
	return a.Tries == b.Tries && a.Pauses == b.Pauses && a.Until.Equal(b.Until) && a.Last.Equal(b.Last)
}

func TestKioskHoldWait(t *testing.T) {
	now := time.Date(2026, 3, 13, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		letGo int
		ago   time.Duration
		want  time.Duration
	}{
		{0, 0, 0},
		{KioskFreeLetGo - 1, 0, 0},
		{KioskFreeLetGo, 0, 30 * time.Second},
		{KioskFreeLetGo, 10 * time.Second, 20 * time.Second},
		{KioskFreeLetGo + 1, 0, time.Minute},
		{KioskFreeLetGo + 3, 0, 4 * time.Minute},
		{KioskFreeLetGo + 20, 0, KioskMaxWait},
		{KioskFreeLetGo + 1, time.Hour, 0},
		{KioskFreeLetGo, -time.Hour, 30 * time.Second}, // ended ahead of the clock: counts as now
	} {
		if got := KioskHoldWait(c.letGo, now.Add(-c.ago), now); got != c.want {
			t.Errorf("KioskHoldWait(%d, %v ago) = %v, want %v", c.letGo, c.ago, got, c.want)
		}
	}
}

func TestKioskShareCheck(t *testing.T) {
	if KioskShowCap(404) != 134 || KioskShowCap(140) != 46 || KioskShowCap(2) != 0 {
		t.Fatalf("caps %d %d %d", KioskShowCap(404), KioskShowCap(140), KioskShowCap(2))
	}
	if err := KioskShareCheck(404, 124, 10); err != nil {
		t.Fatal(err)
	}
	err := KioskShareCheck(404, 130, 10)
	if ErrorCode(err) != EConflict || ErrorMessage(err) != "The kiosks may hold at most a third of this show's seats at once (134): only 4 more can be held here now. Choose fewer, or buy at the counter." {
		t.Fatalf("four left: %v", err)
	}
	err = KioskShareCheck(404, 140, 1)
	if ErrorCode(err) != EConflict || !strings.Contains(ErrorMessage(err), "(134), and they are all held or reserved") {
		t.Fatalf("none left: %v", err)
	}
}

func TestWaitText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "1 second", 1500 * time.Millisecond: "2 seconds", 30 * time.Second: "30 seconds", time.Minute: "1 minute",
		61 * time.Second: "2 minutes", 119 * time.Minute: "119 minutes", 2 * time.Hour: "2 hours", 23*time.Hour + time.Second: "24 hours",
	} {
		if got := WaitText(d); got != want {
			t.Errorf("WaitText(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestKioskAddr(t *testing.T) {
	if got := KioskAddr(" 192.0.2.9 ", "k1"); got != "192.0.2.9" {
		t.Errorf("network address: %q", got)
	}
	if got := KioskAddr("", "k1"); got != "session:k1" || ReservationsPerHour(got) != KioskReservationsPerHour {
		t.Errorf("no address: %q", got)
	}
	if d := DeviceAddr("kiosk foyer"); d != "device:kiosk foyer" || ReservationsPerHour(d) != KioskDeviceReservationsPerHour {
		t.Errorf("device: %q", d)
	}
}
