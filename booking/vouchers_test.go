package booking

import (
	"testing"
	"time"
)

// ApplyVoucher: a percentage rounded half up per line, an amount shared
// to the penny by the largest remainders and never past the lines, a
// limit to a ticket type, film or show.
func TestApplyVoucher_Shares(t *testing.T) {
	t.Parallel()
	line := func(typ string, amount Money) QuoteLine { return QuoteLine{Type: typ, Priced: Priced{Amount: amount}} }
	show := Show{ID: 7, Film: Film{ID: 3}}
	for _, c := range []struct {
		name  string
		v     Voucher
		lines []QuoteLine
		want  []Money
		off   Money
	}{
		{"Percent", Voucher{Percent: 15}, []QuoteLine{line("child", 8_50), line("adult", 12_50)}, []Money{7_22, 10_62}, 3_16},
		{"PercentAll", Voucher{Percent: 100}, []QuoteLine{line("adult", 12_50)}, []Money{0}, 12_50},
		{"AmountShared", Voucher{Off: 5_00}, []QuoteLine{line("child", 8_50), line("adult", 12_50), line("adult", 12_50)}, []Money{7_23, 10_63, 10_64}, 5_00},
		{"AmountThirds", Voucher{Off: 1_00}, []QuoteLine{line("adult", 10_00), line("adult", 10_00), line("adult", 10_00)}, []Money{9_66, 9_67, 9_67}, 1_00},
		{"AmountPastTheLines", Voucher{Off: 50_00}, []QuoteLine{line("adult", 12_50), line("child", 8_50)}, []Money{0, 0}, 21_00},
		{"OnlyChildren", Voucher{Off: 2_00, TicketType: "child"}, []QuoteLine{line("adult", 12_50), line("child", 8_50)}, []Money{12_50, 6_50}, 2_00},
		{"FreeTicket", Voucher{Off: 1_00}, []QuoteLine{line("adult", 0), line("adult", 3_00)}, []Money{0, 2_00}, 1_00},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.v.Code = "CODE"
			got, off, err := ApplyVoucher(c.v, show, c.lines)
			if err != nil {
				t.Fatal(err)
			}
			var sum, was Money
			for i, l := range got {
				if l.Amount != c.want[i] {
					t.Errorf("line %d: %s, want %s", i, l.Amount, c.want[i])
				}
				sum += l.Amount
				was += c.lines[i].Amount
			}
			if off != c.off || sum != was-off {
				t.Fatalf("off %s (want %s); lines %s of %s", off, c.off, sum, was)
			}
		})
	}
	for _, c := range []struct {
		v    Voucher
		want string
	}{
		{Voucher{Code: "F", Off: 1, FilmID: 4}, "Voucher F is for another film (film 4)."},
		{Voucher{Code: "S", Off: 1, ShowID: 8}, "Voucher S is for another show (show 8)."},
		{Voucher{Code: "K", Off: 1, TicketType: "child"}, "Voucher K is for child tickets; this sale has none."},
	} {
		if _, _, err := ApplyVoucher(c.v, show, []QuoteLine{line("adult", 12_50)}); ErrorMessage(err) != c.want || ErrorCode(err) != EInvalid {
			t.Errorf("%s: %v, want %q", c.v.Code, err, c.want)
		}
	}
}

// ValidVoucher and VoucherRefusal: what a voucher may be, and when it is
// no longer taken.
func TestValidVoucher_Rules(t *testing.T) {
	t.Parallel()
	v, err := ValidVoucher(Voucher{Code: " summer-10 ", Percent: 10, TicketType: "Child"})
	if err != nil || v.Code != "SUMMER-10" || v.Uses != 1 || v.UsesLeft != 1 || v.TicketType != "child" {
		t.Fatalf("%+v %v", v, err)
	}
	for _, bad := range []Voucher{
		{Code: "AB", Off: 1}, {Code: "A B C", Off: 1}, {Code: "BOTH", Off: 1, Percent: 1}, {Code: "NONE"},
		{Code: "MANY", Percent: 101}, {Code: "USES", Off: 1, Uses: MaxVoucherUses + 1}, {Code: "NEG", Off: -1, Percent: 5},
	} {
		if _, err := ValidVoucher(bad); ErrorCode(err) != EInvalid {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	until, err := ParseVoucherUntil("2026-12-03", time.UTC)
	if err != nil || !until.Equal(now.Add(12*time.Hour)) {
		t.Fatalf("until %v %v", until, err)
	}
	ok := Voucher{Code: "OK", UsesLeft: 1, Until: until}
	for v, want := range map[*Voucher]string{
		{Code: "OK", UsesLeft: 1, Until: until}:    "",
		{Code: "OLD", UsesLeft: 1, Until: now}:     "Voucher OLD expired on 3 Dec 2026.",
		{Code: "USED", UsesLeft: 0}:                "Voucher USED is used up.",
		{Code: "GONE", UsesLeft: 1, Retired: true}: "Voucher GONE is no longer valid.",
	} {
		if got := ErrorMessage(VoucherRefusal(*v, now)); got != want {
			t.Errorf("%s: %q, want %q", v.Code, got, want)
		}
	}
	if VoucherRefusal(ok, until) == nil {
		t.Error("a voucher taken at the first moment after its last day")
	}
}
