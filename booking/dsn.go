package booking

import (
	"net/url"
	"sort"
	"strings"
)

// redacted stands for a password wherever one was.
const redacted = "****"

// RedactDSN returns s, anything that may be a PostgreSQL address, with
// every password in it replaced by "****", whatever the spelling: a URL
// with any case of scheme and any number of slashes (postgres://,
// POSTGRES://, postgres:/, none), with or without spaces around it, its
// password in the user info or in the query (?password=, &sslpassword=);
// or libpq's keyword/value form (host=… password=secret, password =
// 'it\'s quoted'). Where s is ambiguous it hides too much rather than too
// little. It is the one function every message or log line that may
// print a --db, BOXOFFICE_DB or --to value goes through.
func RedactDSN(s string) string {
	return replaceSpans(s, dsnSecretSpans(s))
}

// RedactSecretsOf returns text with every password the address dsn holds
// replaced by "****": for a driver's error, which may quote the address
// in a spelling of its own.
func RedactSecretsOf(text, dsn string) string {
	secrets := []string{}
	for _, sp := range dsnSecretSpans(dsn) {
		raw := dsn[sp[0]:sp[1]]
		// As written, unquoted, and percent-decoded: the driver may show
		// any of them.
		forms := []string{raw, unquote(raw)}
		if dec, err := url.PathUnescape(raw); err == nil {
			forms = append(forms, dec)
		}
		for _, f := range forms {
			if f != "" {
				secrets = append(secrets, f)
			}
		}
	}
	// The longest first, so a secret that holds another is hidden whole.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, redacted)
	}
	return text
}

// dsnSecretSpans finds the byte ranges of s that are passwords, sorted
// and not overlapping: each value of a key that ends in "password"
// (keyword/value or query), then the password of a URL's user info.
func dsnSecretSpans(s string) [][2]int {
	var spans [][2]int
	lower := asciiLower(s) // byte for byte, so its indexes are s's
	for from := 0; ; {
		i := strings.Index(lower[from:], "password")
		if i < 0 {
			break
		}
		j := from + i + len("password")
		from = j
		k := skipSpace(s, j)
		if k == len(s) || s[k] != '=' {
			continue
		}
		start := skipSpace(s, k+1)
		end := valueEnd(s, start)
		spans = append(spans, [2]int{start, end})
		from = end
	}
	if sp, ok := userInfoPassword(s, spans); ok {
		spans = append(spans, sp)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	// Merge overlaps, so replacing is one pass.
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// valueEnd is where a value starting at i ends: after its closing quote
// when it is quoted ('…' with \-escapes, libpq's way), else at white
// space or at the & or # that ends a query parameter.
func valueEnd(s string, i int) int {
	if i < len(s) && s[i] == '\'' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '\'':
				return j + 1
			}
		}
		return len(s) // unclosed: the rest is the value
	}
	j := i
	for j < len(s) {
		switch s[j] {
		case ' ', '\t', '\n', '\r', '&', '#':
			return j
		case '\\':
			j++
		}
		j++
	}
	return min(j, len(s))
}

// userInfoPassword finds the password of a URL's user info: what follows
// the first ':' of everything before the last '@', once a scheme
// (postgres: or postgresql: in any case, or any scheme followed by a
// slash) and its slashes are set aside. Text already inside a keyword's
// value (done) is not looked at again.
func userInfoPassword(s string, done [][2]int) ([2]int, bool) {
	at := -1
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '@' && !inSpans(i, done) {
			at = i
			break
		}
	}
	if at < 0 {
		return [2]int{}, false
	}
	start := skipSpace(s, 0)
	if c := schemeEnd(s, start, at); c > 0 {
		start = c
		for start < at && s[start] == '/' {
			start++
		}
	}
	colon := strings.IndexByte(s[start:at], ':')
	if colon < 0 {
		return [2]int{}, false
	}
	// Keyword/value text before the user info ("host=h postgres://…")
	// holds no ':' of a URL's: start from the last space before it.
	if sp := strings.LastIndexAny(s[start:start+colon], " \t"); sp >= 0 {
		start += sp + 1
		colon -= sp + 1
	}
	return [2]int{start + colon + 1, at}, true
}

// schemeEnd is the index after a URL scheme's ':' at s[i:], or 0 when
// there is none: postgres or postgresql in any case, or any scheme that
// a '/' follows (user:password@host has no scheme).
func schemeEnd(s string, i, limit int) int {
	j := i
	for j < limit && (isAlpha(s[j]) || j > i && (s[j] >= '0' && s[j] <= '9' || s[j] == '+' || s[j] == '-' || s[j] == '.')) {
		j++
	}
	if j == i || j >= limit || s[j] != ':' {
		return 0
	}
	name := strings.ToLower(s[i:j])
	if name == "postgres" || name == "postgresql" || j+1 < limit && s[j+1] == '/' {
		return j + 1
	}
	return 0
}

// unquote is a keyword/value value as libpq reads it: quotes dropped and
// backslash escapes undone.
func unquote(v string) string {
	v = strings.TrimPrefix(v, "'")
	if strings.HasSuffix(v, "'") && !strings.HasSuffix(v, "\\'") {
		v = v[:len(v)-1]
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func inSpans(i int, spans [][2]int) bool {
	for _, sp := range spans {
		if sp[0] <= i && i < sp[1] {
			return true
		}
	}
	return false
}

func replaceSpans(s string, spans [][2]int) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(redacted)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
