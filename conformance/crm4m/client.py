#!/usr/bin/python3
"""PROFILE=crm4m: Python zeep from the live WSDL, over SOAP 1.1 (client.service) and SOAP 1.2 (client.bind to
the ...Soap12 port), checking the JSON result strings the way CRM4M's partner clients read them
(../../../shared/reference/vendor-profiles.md): a .NET client deserialising exact field names (pa_member a
boolean, pa_webroles a list of {id, name}), a Spring client typing contactid, pa_token and role ids as UUIDs and
testing result.toLowerCase().contains("success").

Run by scripts/conformance-profiles.sh with Debian's /usr/bin/python3 (python3-zeep). Environment: BASE
(http://host:port/DesktopModules/MX), NS, PASSWORD (a caller's security password), BAD_PASSWORD, USERNAME,
USER_PASSWORD, MEMBER_ID (a GUID), EMAIL, ROLE_ID (a GUID), ROLE_NAME.
Prints "PASS crm4m-zeep/<check>" or "FAIL crm4m-zeep/<check>: <detail>"; exits 0 when it ran to the end."""
import json
import os
import sys
import traceback
import uuid

C = "crm4m-zeep"
E = os.environ


def env(key, default=None):
    v = E.get(key, "")
    if v == "":
        if default is None:
            sys.stderr.write("client.py: %s is not set\n" % key)
            sys.exit(2)
        return default
    return v


BASE = env("BASE").rstrip("/")
NS = env("NS", "http://webportalbridge.ptassoc.com/Authentication/")
PW = env("PASSWORD")
BADPW = env("BAD_PASSWORD", "wrong-" + PW + "-x")
USER, UPW = env("USERNAME"), env("USER_PASSWORD")
MEMBER_ID, EMAIL = env("MEMBER_ID"), env("EMAIL")
ROLE_ID, ROLE_NAME = env("ROLE_ID"), env("ROLE_NAME")
WSDL = BASE + "/Authentication.asmx?WSDL"
SERVICE = "Authentication_x0020_Web_x0020_Service"
OPERATIONS = {"AuthenticateToken", "AuthenticateUser", "DeleteUserSession", "ValidateUser"}


def out(ok, check, detail=""):
    line = ("PASS %s/%s" % (C, check)) if ok else ("FAIL %s/%s: %s" % (C, check, " ".join(str(detail).split())[:400]))
    print(line, flush=True)


def run(check, fn):
    """A check returns True (or None), or a string saying what was wrong; an exception is a failure too."""
    try:
        r = fn()
        if r is True or r is None:
            out(True, check)
        else:
            out(False, check, r)
    except Bad as e:
        out(False, check, e)
    except Exception as e:  # noqa
        out(False, check, "%s: %s" % (type(e).__name__, e))
        traceback.print_exc(file=sys.stderr)


class Bad(Exception):
    """A check's failure, with what was received."""


try:
    import zeep
    import zeep.exceptions
    from zeep.transports import Transport
except Exception as e:
    out(False, "toolchain", "python3-zeep not importable (%s) with %s" % (e, sys.executable))
    sys.exit(0)


def is_guid(v):
    """A GUID string, as Jackson's UUID reads it and .NET writes it: uuid.UUID round-trips to the same lower-case text."""
    if not isinstance(v, str):
        return False
    try:
        return str(uuid.UUID(v)) == v
    except ValueError:
        return False


def parse(s):
    """The result string as a JSON object."""
    if not isinstance(s, str) or s == "":
        raise Bad("result is not a non-empty string: %r" % (s,))
    try:
        d = json.loads(s)
    except ValueError as e:
        raise Bad("result is not JSON (%s): %s" % (e, s))
    if not isinstance(d, dict):
        raise Bad("result is not a JSON object: %s" % s)
    return d


def success(s, token_expected):
    """A signed-in member: the fields the .NET and Spring clients read. Returns the object."""
    d = parse(s)
    if d.get("status") != "Success":
        raise Bad("status is not 'Success': %s" % s)
    if not is_guid(d.get("contactid")):
        raise Bad("contactid is not a lower-case GUID: %s" % s)
    if d["contactid"] != MEMBER_ID:
        raise Bad("contactid is not %s: %s" % (MEMBER_ID, s))
    if d.get("emailaddress1") != EMAIL:
        raise Bad("emailaddress1 is not %s: %s" % (EMAIL, s))
    if token_expected and not is_guid(d.get("pa_token")):
        raise Bad("pa_token is not a lower-case GUID: %s" % s)
    if not isinstance(d.get("pa_member"), bool):
        raise Bad("pa_member is not a JSON boolean: %s" % s)
    if d["pa_member"] is not True:
        raise Bad("pa_member is not true for a member added with --member: %s" % s)
    roles = d.get("pa_webroles")
    if not isinstance(roles, list) or not all(isinstance(r, dict) and set(r) == {"id", "name"} for r in roles):
        raise Bad("pa_webroles is not a list of {id, name}: %s" % s)
    if not all(is_guid(r["id"]) for r in roles):
        raise Bad("a pa_webroles id is not a lower-case GUID: %s" % s)
    if roles != [{"id": ROLE_ID, "name": ROLE_NAME}]:
        raise Bad("pa_webroles is not [{id: %s, name: %s}]: %s" % (ROLE_ID, ROLE_NAME, s))
    return d


def failure(s):
    """A refusal: status Failure, and the word "success" nowhere (the Spring client's test)."""
    d = parse(s)
    if "success" in s.lower():
        raise Bad("a refusal contains 'success' (case-insensitive): %s" % s)
    if d.get("status") != "Failure":
        raise Bad("status is not 'Failure': %s" % s)
    return d


try:
    client = zeep.Client(WSDL, transport=Transport(timeout=20, operation_timeout=20))
    out(True, "wsdl-load")
except Exception as e:
    out(False, "wsdl-load", "%s: %s" % (type(e).__name__, e))
    sys.exit(0)


def wsdl_names():
    services = {name: sorted(s.ports) for name, s in client.wsdl.services.items()}
    want = {SERVICE: sorted(SERVICE + p for p in ("Soap", "Soap12", "HttpGet", "HttpPost"))}
    return True if services == want else "services and ports %r, expected %r" % (services, want)


def wsdl_operations():
    b = client.service._binding
    if type(b).__name__ != "Soap11Binding":
        return "client.service is bound to a %s, not a Soap11Binding" % type(b).__name__
    ops = set(b._operations)
    if ops != OPERATIONS:
        return "operations %s, expected %s" % (sorted(ops), sorted(OPERATIONS))
    # CRM4M's AuthenticateUser and ValidateUser take three parameters: no authenticationToken.
    for op in ("AuthenticateUser", "ValidateUser"):
        names = [n for n, _ in b._operations[op].input.body.type.elements]
        if names != ["securityPassword", "username", "password"]:
            return "%s's parameters are %s, expected securityPassword, username, password" % (op, names)
    return True


run("wsdl-names", wsdl_names)
run("wsdl-operations", wsdl_operations)


def suite(p, svc):
    state = {}

    def authenticate_user():
        state["token"] = success(svc.AuthenticateUser(securityPassword=PW, username=USER, password=UPW), True)["pa_token"]

    def need_token():
        if "token" not in state:
            raise Bad("no pa_token from AuthenticateUser (see the check above)")
        return state["token"]

    def authenticate_token():
        token = need_token()
        d = success(svc.AuthenticateToken(securityPassword=PW, token=token), True)
        if d["pa_token"] != token:
            return "pa_token %s is not the token asked about, %s" % (d["pa_token"], token)

    def validate_user():
        success(svc.ValidateUser(securityPassword=PW, username=USER, password=UPW), False)

    def validate_user_wrong():
        failure(svc.ValidateUser(securityPassword=PW, username=USER, password=UPW + "-wrong"))

    def delete_session():
        s = svc.DeleteUserSession(securityPassword=PW, token=need_token())
        d = parse(s)
        if d != {"status": "Success"}:
            return 'expected exactly {"status": "Success"}, got %s' % s

    def token_after_delete():
        failure(svc.AuthenticateToken(securityPassword=PW, token=need_token()))

    def wrong_password():
        failure(svc.AuthenticateUser(securityPassword=PW, username=USER, password=UPW + "-wrong"))

    def bad_security_password():
        try:
            got = svc.AuthenticateUser(securityPassword=BADPW, username=USER, password=UPW)
        except zeep.exceptions.Fault as e:
            return True if e.message else "Fault without message"
        except Exception as e:
            return "expected zeep.exceptions.Fault, got %s: %s" % (type(e).__name__, e)
        return "expected zeep.exceptions.Fault, got result %r" % (got,)

    run(p + "-authenticate-user", authenticate_user)
    run(p + "-authenticate-token", authenticate_token)
    run(p + "-validate-user", validate_user)
    run(p + "-delete-session", delete_session)
    run(p + "-token-after-delete", token_after_delete)
    # the wrong passwords last: each counts towards the sign-in lock of the account
    run(p + "-validate-user-wrong-password", validate_user_wrong)
    run(p + "-wrong-password", wrong_password)
    run(p + "-bad-security-password", bad_security_password)


suite("soap11", client.service)
try:
    s12 = client.bind(SERVICE, SERVICE + "Soap12")
    if type(s12._binding).__name__ != "Soap12Binding":
        raise Bad("port %sSoap12 has a %s, not a Soap12Binding" % (SERVICE, type(s12._binding).__name__))
    out(True, "soap12-port-bind")
except Exception as e:
    out(False, "soap12-port-bind", "%s: %s" % (type(e).__name__, e))
    s12 = None
if s12 is not None:
    suite("soap12", s12)
sys.exit(0)
