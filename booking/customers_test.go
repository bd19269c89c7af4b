package booking

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalEmail(t *testing.T) {
	for in, want := range map[string]string{
		"Ann@Example.com":      "ann@example.com",
		" ann@example.com ":    "ann@example.com",
		"ANN@EXAMPLE.COM":      "ann@example.com",
		"\tann.lee+x@ex.co.uk": "ann.lee+x@ex.co.uk",
		"Zoë@Example.com":      "zoë@example.com",
	} {
		if got, err := NormalEmail(in); err != nil || got != want {
			t.Errorf("NormalEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", "ann", "ann@", "@example.com", "ann@@example.com", "a@b@c", "ann lee@example.com",
		"ann@example.com.", "ann@.example.com", "ann\x1b@example.com", "ann\u202e@example.com", strings.Repeat("a", MaxEmailLen) + "@x.y"} {
		if got, err := NormalEmail(bad); ErrorCode(err) != EInvalid {
			t.Errorf("NormalEmail(%q) = %q, %v; want EInvalid", bad, got, err)
		}
	}
}

func TestNewCustomer_Normal(t *testing.T) {
	got, err := NewCustomer{Name: "  Ann Lee ", Email: "Ann@Example.com", Phone: "07700 900123"}.Normal("44")
	if err != nil || got != (NewCustomer{Name: "Ann Lee", Email: "ann@example.com", Phone: "447700900123"}) {
		t.Fatalf("%+v, %v", got, err)
	}
	if got, err := (NewCustomer{Name: "Bo", Email: "bo@example.com", Phone: " "}).Normal(""); err != nil || got.Phone != "" {
		t.Fatalf("no phone: %+v, %v", got, err)
	}
	for what, c := range map[string]NewCustomer{
		"no name":   {Email: "ann@example.com"},
		"bad phone": {Name: "Ann", Email: "ann@example.com", Phone: "12"},
		"bad email": {Name: "Ann", Email: "ann"},
	} {
		if _, err := c.Normal("44"); ErrorCode(err) != EInvalid {
			t.Errorf("%s: %v", what, err)
		}
	}
}

func TestParseCustomerSearch(t *testing.T) {
	for in, want := range map[string]CustomerSearch{
		" ANN@example.com": {Email: "ann@example.com"},
		"07700 900123":     {PhoneRev: "321009007"},
		"0123":             {PhoneRev: "3210"},
		"Müller ann":       {Words: []string{"muller", "ann"}},
	} {
		got, err := ParseCustomerSearch(in)
		if err != nil || got.Email != want.Email || got.PhoneRev != want.PhoneRev || strings.Join(got.Words, ",") != strings.Join(want.Words, ",") {
			t.Errorf("ParseCustomerSearch(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", " - ", "ann@"} {
		if _, err := ParseCustomerSearch(bad); ErrorCode(err) != EInvalid {
			t.Errorf("ParseCustomerSearch(%q): %v, want EInvalid", bad, err)
		}
	}
}

// TestCustomerTaken: staff are told whose an address is; a customer's
// own session is told it is registered, never by whom.
func TestCustomerTaken(t *testing.T) {
	ann := Customer{ID: 12, Name: "Ann \x1b[31mLee"}
	err := error(CustomerTaken(Actor{Name: "carl", Role: RoleClerk}, "e-mail address", ann))
	var taken *CustomerTakenError
	if !errors.As(err, &taken) || taken.CustomerID != 12 || ErrorCode(err) != EConflict ||
		ErrorMessage(err) != "That e-mail address belongs to customer 12 (Ann [31mLee)." {
		t.Fatalf("to a clerk: %v (%q)", err, ErrorMessage(err))
	}
	for _, a := range []Actor{{Name: "kiosk", Role: RoleKiosk}, {Name: "door", Role: RoleDoor}, {}} {
		err := error(CustomerTaken(a, "phone number", ann))
		if !errors.As(err, &taken) || taken.CustomerID != 0 || ErrorCode(err) != EConflict || strings.Contains(ErrorMessage(err), "Ann") ||
			ErrorMessage(err) != "That phone number is registered already: ask at the box office." {
			t.Errorf("to %s: %v", a.Role, err)
		}
	}
}
