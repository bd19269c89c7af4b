package booking_test

import (
	"testing"

	"boxoffice/booking"
)

func TestParsePrinter(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for in, want := range map[string]string{
			"":                        "",
			"tcp://192.168.1.50:9100": "tcp://192.168.1.50:9100",
			"tcp://192.168.1.50":      "tcp://192.168.1.50:9100",
			"TCP://till-printer.lan/": "tcp://till-printer.lan:9100",
			"tcp://[::1]:9101":        "tcp://[::1]:9101",
			"tcp://[fe80::1]":         "tcp://[fe80::1]:9100",
			"/dev/usb/lp0":            "/dev/usb/lp0",
			" /dev/lp1 ":              "/dev/lp1",
		} {
			p, err := booking.ParsePrinter(in)
			if err != nil {
				t.Errorf("ParsePrinter(%q): %v", in, err)
				continue
			}
			if p.String() != want {
				t.Errorf("ParsePrinter(%q) = %q, want %q", in, p.String(), want)
			}
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, in := range []string{
			"192.168.1.50:9100", "http://printer", "tcp://", "tcp://host:0", "tcp://host:70000",
			"tcp://host:abc", "tcp://user@host", "tcp://host/path", "tcp://fe80::1", "tcp://bad_host",
			"/tmp/printer", "/dev/", "/dev/../etc/passwd", "/dev/usb//lp0", "tcp://host\x1b[2J",
			"lp0", "tcp://-host",
		} {
			_, err := booking.ParsePrinter(in)
			if booking.ErrorCode(err) != booking.EInvalid {
				t.Errorf("ParsePrinter(%q) = %v, want EInvalid", in, err)
			}
		}
	})
}
