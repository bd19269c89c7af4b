package assets_test

import (
	"os"
	"regexp"
	"sort"
	"testing"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
)

func TestHalls_OK(t *testing.T) {
	halls, err := assets.Halls()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name     string
		min, max int
	}{
		{"Grand", 380, 420},
		{"Screen 2", 160, 200},
		{"Studio", 50, 70},
	}
	if len(halls) != len(want) {
		t.Fatalf("%d halls, want %d", len(halls), len(want))
	}
	for i, w := range want {
		h := halls[i]
		if h.Name != w.name {
			t.Errorf("hall %d is %q, want %q", i, h.Name, w.name)
		}
		if c := h.Capacity(); c < w.min || c > w.max {
			t.Errorf("%s: capacity %d, want %d..%d", h.Name, c, w.min, w.max)
		}
		kinds := map[booking.SeatKind]int{}
		for _, s := range h.Seats {
			kinds[s.Kind]++
		}
		if kinds[booking.Wheelchair] == 0 || kinds[booking.Companion] < kinds[booking.Wheelchair] {
			t.Errorf("%s: %d wheelchair places, %d companion seats", h.Name, kinds[booking.Wheelchair], kinds[booking.Companion])
		}
		// Every wheelchair place has a companion seat beside it.
		for _, s := range h.Seats {
			if s.Kind != booking.Wheelchair {
				continue
			}
			beside := false
			for _, o := range h.Seats {
				if o.Row == s.Row && o.Kind == booking.Companion && (o.Col == s.Col-1 || o.Col == s.Col+1) {
					beside = true
				}
			}
			if !beside {
				t.Errorf("%s: wheelchair place %s has no companion seat beside it", h.Name, s.Label)
			}
		}
		t.Logf("%s: %d seats, %d rows, width %d, kinds %v", h.Name, h.Capacity(), len(h.Rows), h.Width, kinds)
	}
	if halls[0].Capacity() <= halls[1].Capacity() || halls[1].Capacity() <= halls[2].Capacity() {
		t.Error("halls are not Grand > Screen 2 > Studio")
	}
}

// TestFormatExample keeps the example in FORMAT.md a valid layout.
func TestFormatExample(t *testing.T) {
	doc, err := os.ReadFile("halls/FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```\n(# Screen 2.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("no example in FORMAT.md")
	}
	h, err := booking.ParseLayout("example.hall", m[1])
	if err != nil {
		t.Fatal(err)
	}
	if h.Capacity() != 62 || len(h.Rows) != 4 || h.Width != 18 {
		t.Errorf("example: %d seats, %d rows, width %d", h.Capacity(), len(h.Rows), h.Width)
	}
}

func TestDemo_OK(t *testing.T) {
	for _, loc := range []*time.Location{time.UTC, time.FixedZone("east", 13*3600), time.FixedZone("west", -11*3600)} {
		today := time.Date(2031, 3, 30, 23, 59, 0, 0, loc)
		seed, err := assets.Demo(today)
		if err != nil {
			t.Fatal(err)
		}
		if len(seed.Halls) != 3 {
			t.Errorf("%d halls", len(seed.Halls))
		}
		if len(seed.Films) != 5 {
			t.Errorf("%d films", len(seed.Films))
		}
		for _, f := range seed.Films {
			if f.Title == "" || f.Minutes < 80 || f.Minutes > 180 || f.Rating == "" {
				t.Errorf("film %+v", f)
			}
		}
		if len(seed.TicketTypes) != 4 {
			t.Errorf("%d ticket types", len(seed.TicketTypes))
		}
		codes := map[string]bool{}
		for _, tt := range seed.TicketTypes {
			if tt.Price <= 0 || tt.Name == "" || codes[tt.Code] {
				t.Errorf("ticket type %+v", tt)
			}
			codes[tt.Code] = true
		}
		for _, c := range []string{"adult", "child", "senior", "student"} {
			if !codes[c] {
				t.Errorf("no %s ticket", c)
			}
		}
		if len(seed.Staff) != 1 || seed.Staff[0] != (booking.SeedStaff{Name: assets.DemoUser, Role: booking.RoleManager, PIN: assets.DemoPIN}) {
			t.Errorf("staff %+v", seed.Staff)
		}
		checkShows(t, seed, today)
	}
}

func checkShows(t *testing.T, seed booking.Seed, today time.Time) {
	t.Helper()
	type dayHall struct {
		day  string
		hall int
	}
	perDayHall := map[dayHall][]booking.SeedShow{}
	days := map[string]bool{}
	filmsPlayed := map[int]bool{}
	for _, s := range seed.Shows {
		if s.Film < 0 || s.Film >= len(seed.Films) || s.Hall < 0 || s.Hall >= len(seed.Halls) {
			t.Fatalf("show %+v points outside the seed", s)
		}
		if s.Starts.Location() != today.Location() {
			t.Errorf("show at %v is not in %v", s.Starts, today.Location())
		}
		hm := s.Starts.Hour()*60 + s.Starts.Minute()
		if hm < 11*60 || hm > 22*60+30 || s.Starts.Minute()%5 != 0 {
			t.Errorf("show starts at %s", s.Starts.Format("15:04"))
		}
		day := s.Starts.Format("2006-01-02")
		days[day] = true
		filmsPlayed[s.Film] = true
		perDayHall[dayHall{day, s.Hall}] = append(perDayHall[dayHall{day, s.Hall}], s)
	}
	var dayList []string
	for d := range days {
		dayList = append(dayList, d)
	}
	sort.Strings(dayList)
	if len(dayList) != 7 {
		t.Fatalf("shows on %d days: %v", len(dayList), dayList)
	}
	for i, d := range dayList {
		y, m, dd := today.Date()
		if want := time.Date(y, m, dd+i, 12, 0, 0, 0, today.Location()).Format("2006-01-02"); d != want {
			t.Errorf("day %d is %s, want %s", i, d, want)
		}
	}
	if len(filmsPlayed) != len(seed.Films) {
		t.Errorf("only %d films scheduled", len(filmsPlayed))
	}
	for _, d := range dayList {
		for h := range seed.Halls {
			shows := perDayHall[dayHall{d, h}]
			if len(shows) < 4 || len(shows) > 5 {
				t.Errorf("%s hall %d: %d shows", d, h, len(shows))
			}
			sort.Slice(shows, func(i, j int) bool { return shows[i].Starts.Before(shows[j].Starts) })
			for i := 1; i < len(shows); i++ {
				prev := shows[i-1]
				ends := prev.Starts.Add(time.Duration(seed.Films[prev.Film].Minutes+20+15) * time.Minute)
				if shows[i].Starts.Before(ends) {
					t.Errorf("%s hall %d: show at %s starts before the one at %s is out and cleaned (%s)",
						d, h, shows[i].Starts.Format("15:04"), prev.Starts.Format("15:04"), ends.Format("15:04"))
				}
			}
		}
	}
}

// TestDemo_SummerTime checks that a week across a clock change keeps its
// wall-clock times.
func TestDemo_SummerTime(t *testing.T) {
	loc, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	today := time.Date(2031, 3, 27, 9, 0, 0, 0, loc) // clocks go forward on 30 March 2031
	seed, err := assets.Demo(today)
	if err != nil {
		t.Fatal(err)
	}
	checkShows(t, seed, today)
	opens := map[string]string{} // day -> first start in the first hall
	for _, s := range seed.Shows {
		d := s.Starts.Format("2006-01-02")
		if _, seen := opens[d]; s.Hall == 0 && !seen {
			opens[d] = s.Starts.Format("15:04")
		}
	}
	for d, at := range opens {
		if at != "11:00" {
			t.Errorf("%s: first show at %s, want 11:00", d, at)
		}
	}
}

// The demo's premium seats cost more than its standard seats, for every
// ticket type, and its accessible places never more.
func TestDemo_PremiumCostsMore(t *testing.T) {
	seed, err := assets.Demo(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	table := &booking.PriceTable{Types: seed.TicketTypes, Entries: map[booking.PriceKey]booking.Money{}}
	for _, e := range seed.Prices {
		if err := e.Validate(); err != nil {
			t.Fatalf("%+v: %v", e, err)
		}
		table.Entries[e.PriceKey] = e.Amount
	}
	for _, list := range []string{"", "evening"} {
		for _, ty := range seed.TicketTypes {
			std, _ := booking.PriceFor(table, list, ty.Code, booking.Standard)
			prem, _ := booking.PriceFor(table, list, ty.Code, booking.Premium)
			wheel, _ := booking.PriceFor(table, list, ty.Code, booking.Wheelchair)
			if prem.Amount <= std.Amount || prem.Source == "" || wheel.Amount > std.Amount {
				t.Errorf("%s on %q: standard %s, premium %s (%q), wheelchair %s", ty.Code, list, std.Amount, prem.Amount, prem.Source, wheel.Amount)
			}
		}
	}
}
