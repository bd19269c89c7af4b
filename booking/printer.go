package booking

import (
	"net"
	"path"
	"strconv"
	"strings"
)

// PrinterPort is the port of an ESC/POS printer on the network ("raw" or
// JetDirect printing) when its URL names none.
const PrinterPort = 9100

// Printer is where a counter prints: an ESC/POS printer on the network
// (tcp://HOST[:PORT]) or a device on the machine that runs the program
// (/dev/usb/lp0). The zero value is no printer.
type Printer struct {
	// Addr is host:port for a network printer; Device the device path.
	Addr   string
	Device string
}

// None reports whether p is no printer.
func (p Printer) None() bool { return p.Addr == "" && p.Device == "" }

// String is p's URL as ParsePrinter reads it back, "" for none.
func (p Printer) String() string {
	if p.Device != "" {
		return p.Device
	}
	if p.Addr != "" {
		return "tcp://" + p.Addr
	}
	return ""
}

// errPrinter is the one message for a printer URL that is not one.
const errPrinter = "A printer is tcp://HOST[:PORT] (port 9100 when none is given) or a device path such as /dev/usb/lp0."

// ParsePrinter reads a printer URL: tcp://HOST[:PORT] or an absolute
// device path under /dev/. An empty s is no printer. EInvalid, saying
// what a printer URL looks like, for anything else.
func ParsePrinter(s string) (Printer, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Printer{}, nil
	case len(s) > 200 || CleanLine(s, 200) != s || strings.ContainsAny(s, " \\"):
		return Printer{}, Errorf(EInvalid, "%s", errPrinter)
	case strings.HasPrefix(s, "/"):
		return parseDevice(s)
	case strings.HasPrefix(strings.ToLower(s), "tcp://"):
		return parseTCP(s[len("tcp://"):])
	}
	return Printer{}, Errorf(EInvalid, "%s", errPrinter)
}

func parseDevice(s string) (Printer, error) {
	clean := path.Clean(s)
	if clean != s || !strings.HasPrefix(clean, "/dev/") || len(clean) <= len("/dev/") {
		return Printer{}, Errorf(EInvalid, "A printer device is a path under /dev/, such as /dev/usb/lp0.")
	}
	return Printer{Device: clean}, nil
}

func parseTCP(hostport string) (Printer, error) {
	hostport = strings.TrimSuffix(hostport, "/")
	if hostport == "" || strings.ContainsAny(hostport, "/?#@") {
		return Printer{}, Errorf(EInvalid, "%s", errPrinter)
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: the whole is the host (a bare IPv6 address needs [ ]).
		host, port = strings.Trim(hostport, "[]"), strconv.Itoa(PrinterPort)
		if strings.Contains(host, ":") && !strings.HasPrefix(hostport, "[") {
			return Printer{}, Errorf(EInvalid, "Put an IPv6 printer address in brackets: tcp://[%s]:9100.", host)
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return Printer{}, Errorf(EInvalid, "A printer's port is a number from 1 to 65535, such as 9100.")
	}
	if host == "" || !validHost(host) {
		return Printer{}, Errorf(EInvalid, "%q is not a host name or address for a printer.", host)
	}
	return Printer{Addr: net.JoinHostPort(host, strconv.Itoa(n))}, nil
}

// validHost accepts an IP address or a DNS name of letters, digits,
// hyphens and dots.
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
	}
	return true
}
