package booking

import (
	"math"
	"strings"
	"testing"
)

func TestParseMoney(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for in, want := range map[string]Money{
			"12": 1200, "12.5": 1250, "12.50": 1250, "12,50": 1250, "0": 0, "0.05": 5, "0.5": 50,
			" 20 ": 2000, "007": 700, "1000000": MaxMoney, "999999.99": MaxMoney - 1, "30.00": 3000,
		} {
			got, err := ParseMoney(in)
			if err != nil || got != want {
				t.Errorf("ParseMoney(%q) = %d, %v; want %d", in, got, err, want)
			}
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, in := range []string{
			"", " ", "100.-5", "-0.50", "-5", "+3", "1e3", "12.505", "1,000", "1,000.00", "1.000",
			".5", "5.", ".", ",", "12.5.0", "12 50", "€12", "12€", "$3", "0x10", "١٢", "12.٥",
			"abc", "NaN", "Inf", "1000000.01", "99999999999", "9223372036854775807", "1_000",
			"12.5\x00", "\u202e12",
		} {
			got, err := ParseMoney(in)
			if err == nil {
				t.Errorf("ParseMoney(%q) = %d, want an error", in, got)
				continue
			}
			if ErrorCode(err) != EInvalid {
				t.Errorf("ParseMoney(%q): code %s, want invalid", in, ErrorCode(err))
			}
			if msg := ErrorMessage(err); strings.ContainsAny(msg, "\x00\u202e") {
				t.Errorf("ParseMoney(%q): message %q carries a control character", in, msg)
			}
		}
	})
}

func TestMoney_String(t *testing.T) {
	for minor, want := range map[Money]string{
		0: "0.00", 5: "0.05", 50: "0.50", 1250: "12.50", 100000: "1000.00", -250: "-2.50", -5: "-0.05",
		math.MaxInt64: "92233720368547758.07", math.MinInt64: "-92233720368547758.08",
	} {
		if got := minor.String(); got != want {
			t.Errorf("(%d).String() = %s, want %s", minor, got, want)
		}
	}
}

// FuzzParseMoney: whatever is typed, an accepted amount is non-negative,
// at most MaxMoney, made only of digits and one separator, and formats
// back to the same amount.
func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"12", "12.50", "100.-5", "-0.50", "1e3", "1,000", " 3 ", "0.05", "+3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseMoney(s)
		if err != nil {
			if ErrorCode(err) != EInvalid {
				t.Fatalf("ParseMoney(%q): code %s", s, ErrorCode(err))
			}
			return
		}
		if v < 0 || v > MaxMoney {
			t.Fatalf("ParseMoney(%q) = %d, out of range", s, v)
		}
		if strings.ContainsAny(s, "-+eE_") {
			t.Fatalf("ParseMoney(%q) = %d accepted a sign, exponent or underscore", s, v)
		}
		back, err := ParseMoney(v.String())
		if err != nil || back != v {
			t.Fatalf("ParseMoney((%d).String()) = %d, %v", v, back, err)
		}
	})
}
