package reference

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// errWebhookTarget is the reason a webhook URL or address is refused; it is
// wrapped with the detail.
var errWebhookTarget = errors.New("webhook target refused")

// LocalNetworks are the loopback and private ranges (RFC 1918, RFC 6598
// shared space, IPv6 unique local): the ranges webhook deliveries may reach
// when Config.WebhookAllow is nil, as for a server bound to loopback.
func LocalNetworks() []netip.Prefix {
	return []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("fc00::/7"),
	}
}

// metadataAddrs are cloud instance-metadata endpoints outside link-local.
var metadataAddrs = [...]netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud metadata
}

// webhookPolicy decides which addresses webhook deliveries may reach:
// public unicast addresses, plus the ranges of allow. Link-local,
// metadata, unspecified, multicast and broadcast addresses are refused
// whatever allow says.
type webhookPolicy struct {
	allow []netip.Prefix
}

func newWebhookPolicy(allow []netip.Prefix) webhookPolicy {
	if allow == nil {
		allow = LocalNetworks()
	}
	return webhookPolicy{allow: allow}
}

// checkAddr reports whether a delivery may connect to a.
func (p webhookPolicy) checkAddr(a netip.Addr) error {
	a = a.Unmap()
	if a.Is6() && nat64.Contains(a) { // 64:ff9b::a.b.c.d reaches a.b.c.d
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case !a.IsValid(), a.IsUnspecified(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(),
		a.IsInterfaceLocalMulticast(), a.IsMulticast(), thisNetwork.Contains(a), a == broadcast:
		return fmt.Errorf("%w: %s is a link-local, unspecified or multicast address", errWebhookTarget, a)
	}
	for _, m := range metadataAddrs {
		if a == m {
			return fmt.Errorf("%w: %s is a metadata address", errWebhookTarget, a)
		}
	}
	for _, pfx := range p.allow {
		if pfx.Contains(a) {
			return nil
		}
	}
	if a.IsLoopback() || a.IsPrivate() || shared.Contains(a) {
		return fmt.Errorf("%w: %s is a loopback or private address this server may not reach (see --webhook-allow)", errWebhookTarget, a)
	}
	return nil
}

var (
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	shared      = netip.MustParsePrefix("100.64.0.0/10")
	broadcast   = netip.MustParseAddr("255.255.255.255")
)

// checkURL checks a webhook URL at registration and before each delivery:
// http or https, a host, a port in range, no user or password, and, for an
// address written literally (or a name for loopback), an address the
// policy admits. A host written as a number in any form but a canonical
// dotted quad ("2852039166", "0251.0376.0251.0376", "0xa9fea9fe") is refused:
// resolvers disagree on what it means. Other names are checked when a
// delivery connects, after resolution.
func (p webhookPolicy) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: not a URL", errWebhookTarget)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w: the scheme must be http or https", errWebhookTarget)
	case u.User != nil:
		return fmt.Errorf("%w: the URL must not carry a user or password (use authentication)", errWebhookTarget)
	case u.Hostname() == "":
		return fmt.Errorf("%w: the URL has no host", errWebhookTarget)
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%w: port %s is not from 1 to 65535", errWebhookTarget, port)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return fmt.Errorf("%w: empty port", errWebhookTarget)
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if a, err := netip.ParseAddr(host); err == nil {
		return p.checkAddr(a)
	}
	if numericHost(host) {
		return fmt.Errorf("%w: the host is a number but not a canonical IP address", errWebhookTarget)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return p.checkAddr(netip.IPv6Loopback())
	}
	return nil
}

// numericHost reports whether the last label of host is a number (decimal,
// octal or hexadecimal): no DNS name ends so, but inet_aton reads it as an
// address.
func numericHost(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		last = last[2:]
		return strings.Trim(last, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// control is the dialer's check of the address a delivery is about to
// connect to, after DNS resolution: a name pointing somewhere refused
// (now or since registration) reaches nothing.
func (p webhookPolicy) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unexpected dial address %q", errWebhookTarget, address)
	}
	return p.checkAddr(ap.Addr())
}

// webhookClient is the default delivery client: a 10s timeout, no proxy, no
// redirects, and a dialer that checks every address it connects to.
func (p webhookPolicy) webhookClient() *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: p.control}
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ResponseHeaderTimeout: 10 * time.Second,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: noRedirects,
	}
}

// noRedirects makes a client return a redirect as the response: a
// delivery answered with a 3xx has failed, and goes nowhere else.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
