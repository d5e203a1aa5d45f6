<?php
// PROFILE=isgweb: PHP SoapClient in WSDL mode (SOAP_1_1 and SOAP_1_2), calling the service the way the
// WordPress "Authentication: ISGweb for iMIS" plugin and the Drupal imis_isgweb wrapper do
// (../../../shared/reference/vendor-profiles.md): AuthenticateUser, then AuthenticateToken with User/@TOKEN,
// each result string parsed as an iBridge document after rewriting UTF-16 to UTF-8; Login; DeleteUserSession;
// Error Descriptions matched with /invalid username/i and /token/i. Also the WSDL names a JAX-WS client
// generated from ISGweb's WSDL looks up.
//
// Run by scripts/conformance-profiles.sh. Environment: BASE (http://host:port/iservices), NS, PASSWORD (a
// caller's security password), BAD_PASSWORD, USERNAME, USER_PASSWORD, MEMBER_ID, EMAIL.
// Prints "PASS isgweb-php/<check>" or "FAIL isgweb-php/<check>: <detail>"; exits 0 when it ran to the end.
$C = 'isgweb-php';
function env($k, $d = null) {
    $v = getenv($k);
    if ($v === false || $v === '') {
        if ($d === null) { fwrite(STDERR, "client.php: $k is not set\n"); exit(2); }
        return $d;
    }
    return $v;
}
$BASE = rtrim(env('BASE'), '/');
$NS = env('NS', 'http://ibridge.isgsolutions.com/Authentication/');
$PW = env('PASSWORD'); $BADPW = env('BAD_PASSWORD', 'wrong-' . $PW . '-x');
$USER = env('USERNAME'); $UPW = env('USER_PASSWORD');
$MEMBER_ID = env('MEMBER_ID'); $EMAIL = env('EMAIL');
$WSDL = $BASE . '/Authentication.asmx?WSDL';
$OPERATIONS = array('AuthenticateCookie', 'AuthenticateToken', 'AuthenticateUser', 'DeleteUserSession', 'Login');
ini_set('default_socket_timeout', '20');

function out($ok, $check, $detail = '') {
    global $C;
    if ($ok) { echo "PASS $C/$check\n"; }
    else { echo "FAIL $C/$check: " . substr(preg_replace('/\s+/', ' ', (string)$detail), 0, 400) . "\n"; }
}
// A check returns true, or a string saying what was wrong; an exception is a failure too.
function run($check, $fn) {
    try { $r = $fn(); out($r === true, $check, $r === false ? 'check returned false' : $r); }
    catch (Throwable $e) { out(false, $check, get_class($e) . ': ' . $e->getMessage()); }
}

if (!extension_loaded('soap')) { out(false, 'toolchain', 'PHP soap extension not loaded (apt-get install php-soap)'); exit(0); }
if (!extension_loaded('simplexml') || !extension_loaded('dom') || !extension_loaded('xml')) { out(false, 'toolchain', 'PHP xml extensions not loaded (apt-get install php-xml)'); exit(0); }

/**
 * The result string as the plugin reads it: exactly "UTF-16" rewritten to "UTF-8" (libxml refuses a document
 * declared UTF-16 that is not), then SimpleXML. Throws with the string when it is not an iBridge document.
 */
function ibridge($s) {
    if (!is_string($s) || $s === '') throw new Exception('result is not a non-empty string: ' . var_export($s, true));
    libxml_use_internal_errors(true); libxml_clear_errors();
    $doc = simplexml_load_string(str_replace('UTF-16', 'UTF-8', $s));
    if ($doc === false) {
        $errs = array_map(function ($e) { return trim($e->message); }, libxml_get_errors()); libxml_clear_errors();
        throw new Exception('result does not parse as XML (' . implode('; ', $errs) . '): ' . $s);
    }
    if (strcasecmp($doc->getName(), 'iBridge') !== 0) throw new Exception('root element is <' . $doc->getName() . '>, not <iBridge>: ' . $s);
    return $doc;
}
/** The first Error's Description, or null when the document has no Errors. */
function errorDescription($doc) {
    if (!isset($doc->Errors)) return null;
    $e = $doc->Errors->Error;
    return isset($e[0]) ? (string)$e[0]['Description'] : '';
}
function attrs($el) {
    $a = array();
    foreach ($el->attributes() as $k => $v) $a[$k] = (string)$v;
    return $a;
}
/** The User element's attributes, or a string saying why there is none. */
function user($doc, $s) {
    $d = errorDescription($doc);
    if ($d !== null) return "expected a User, got an Error: $d";
    if (!isset($doc->User)) return "expected <User>, got: $s";
    return attrs($doc->User);
}

// ---- the WSDL's names, as a JAX-WS client generated from ISGweb's WSDL looks them up ----
$dom = null;
run('wsdl-fetch', function () use ($WSDL, &$dom) {
    $ctx = stream_context_create(array('http' => array('timeout' => 20, 'ignore_errors' => true)));
    $raw = @file_get_contents($WSDL, false, $ctx);
    if ($raw === false) return "GET $WSDL failed";
    $status = isset($http_response_header[0]) ? $http_response_header[0] : '';
    if (strpos($status, ' 200') === false) return "GET $WSDL -> $status";
    $d = new DOMDocument();
    libxml_use_internal_errors(true);
    if (!$d->loadXML($raw, LIBXML_NONET)) return 'WSDL does not parse: ' . substr($raw, 0, 200);
    $dom = $d;
    return true;
});
if ($dom !== null) {
    $W = 'http://schemas.xmlsoap.org/wsdl/';
    $xp = new DOMXPath($dom);
    $xp->registerNamespace('wsdl', $W);
    $tns = $dom->documentElement->getAttribute('targetNamespace');
    // "tns:Name" -> "Name", when the prefix is the target namespace
    $local = function (DOMElement $el, $attr) use ($tns) {
        $q = $el->getAttribute($attr);
        $p = strpos($q, ':');
        $prefix = $p === false ? null : substr($q, 0, $p);
        if ($el->lookupNamespaceURI($prefix) !== $tns) return "{not in the target namespace}$q";
        return $p === false ? $q : substr($q, $p + 1);
    };
    run('wsdl-namespace', function () use ($tns, $NS) {
        return $tns === $NS ? true : "targetNamespace is '$tns', expected '$NS'";
    });
    run('wsdl-service-name', function () use ($xp) {
        $names = array();
        foreach ($xp->query('/wsdl:definitions/wsdl:service') as $s) $names[] = $s->getAttribute('name');
        return $names === array('Authentication') ? true : 'wsdl:service names: ' . json_encode($names) . ', expected ["Authentication"]';
    });
    run('wsdl-ports', function () use ($xp, $local) {
        $want = array('AuthenticationSoap', 'AuthenticationSoap12', 'AuthenticationHttpGet', 'AuthenticationHttpPost');
        $ports = array();
        foreach ($xp->query('/wsdl:definitions/wsdl:service[@name="Authentication"]/wsdl:port') as $p) $ports[$p->getAttribute('name')] = $p;
        $missing = array_diff($want, array_keys($ports));
        if ($missing) return 'ports missing: ' . implode(', ', $missing) . ' (have: ' . implode(', ', array_keys($ports)) . ')';
        // every port's binding exists; the two SOAP ones are of portType Authentication_x0020_Web_x0020_ServiceSoap
        foreach ($want as $name) {
            $b = $local($ports[$name], 'binding');
            $bs = $xp->query('/wsdl:definitions/wsdl:binding[@name="' . $b . '"]');
            if ($bs->length !== 1) return "port $name names binding '$b', which the WSDL does not define";
            if ($name === 'AuthenticationSoap' || $name === 'AuthenticationSoap12') {
                $t = $local($bs->item(0), 'type');
                if ($t !== 'Authentication_x0020_Web_x0020_ServiceSoap') return "port $name: binding $b is of portType '$t', expected Authentication_x0020_Web_x0020_ServiceSoap";
            }
        }
        return true;
    });
    run('wsdl-port-type', function () use ($xp, $OPERATIONS) {
        $pt = $xp->query('/wsdl:definitions/wsdl:portType[@name="Authentication_x0020_Web_x0020_ServiceSoap"]');
        if ($pt->length !== 1) return 'no wsdl:portType named Authentication_x0020_Web_x0020_ServiceSoap';
        $ops = array();
        foreach ($xp->query('wsdl:operation', $pt->item(0)) as $o) $ops[] = $o->getAttribute('name');
        $missing = array_diff($OPERATIONS, $ops);
        return $missing ? 'portType lacks ' . implode(', ', $missing) . ' (has ' . implode(', ', $ops) . ')' : true;
    });
}

// ---- the plugin's calls, over SOAP 1.1 and SOAP 1.2 ----
foreach (array('soap11' => SOAP_1_1, 'soap12' => SOAP_1_2) as $p => $ver) {
    try {
        // The plugin's options, except the WSDL cache (each run here is a new server on a new port).
        $cl = new SoapClient($WSDL, array(
            'soap_version' => $ver, 'trace' => 1, 'exceptions' => true,
            'cache_wsdl' => WSDL_CACHE_NONE, 'connection_timeout' => 10,
            'compression' => SOAP_COMPRESSION_ACCEPT | SOAP_COMPRESSION_GZIP,
        ));
    } catch (Throwable $e) { out(false, "$p-wsdl-load", get_class($e) . ': ' . $e->getMessage()); continue; }
    run("$p-wsdl-functions", function () use ($cl, $OPERATIONS) {
        $have = implode(' | ', $cl->__getFunctions());
        $missing = array();
        foreach ($OPERATIONS as $op) if (!preg_match('/\b' . $op . '\(/', $have)) $missing[] = $op;
        if ($missing) return 'missing from __getFunctions(): ' . implode(', ', $missing) . "; have: $have";
        // AuthenticateUser and Login take the fourth parameter, authenticationToken
        $types = implode(' | ', $cl->__getTypes());
        foreach (array('AuthenticateUser', 'Login') as $op) {
            if (!preg_match('/struct ' . $op . ' \{[^}]*\bauthenticationToken;/', $types)) return "$op has no authenticationToken parameter in __getTypes(): $types";
        }
        return true;
    });

    // The request really went out as this SOAP version, with the .NET-style action.
    $wire = function ($op) use ($cl, $ver, $NS) {
        $h = (string)$cl->__getLastRequestHeaders(); $b = (string)$cl->__getLastRequest();
        if ($ver == SOAP_1_1) {
            if (stripos($h, "SOAPAction: \"$NS$op\"") === false) return "request lacks SOAPAction \"$NS$op\": $h";
            if (strpos($b, 'http://schemas.xmlsoap.org/soap/envelope/') === false) return 'request not a SOAP 1.1 envelope';
        } else {
            if (stripos($h, 'application/soap+xml') === false) return "request Content-Type not application/soap+xml: $h";
            if (strpos($b, 'http://www.w3.org/2003/05/soap-envelope') === false) return 'request not a SOAP 1.2 envelope';
        }
        return true;
    };
    // One call, as the plugin makes it: __soapCall(op, ['parameters' => [...]]); returns the result string.
    $call = function ($op, $params) use ($cl) {
        $res = $cl->__soapCall($op, array('parameters' => $params));
        $prop = $op . 'Result';
        if (!is_object($res) || !property_exists($res, $prop)) throw new Exception("response has no $prop; raw: " . $cl->__getLastResponse());
        return $res->$prop;
    };

    $token = null;
    run("$p-authenticate-user", function () use ($call, $wire, $PW, $USER, $UPW, $MEMBER_ID, &$token) {
        $s = $call('AuthenticateUser', array('securityPassword' => $PW, 'username' => $USER, 'password' => $UPW, 'authenticationToken' => ''));
        $u = user(ibridge($s), $s);
        if (is_string($u)) return $u;
        if (!isset($u['TOKEN']) || $u['TOKEN'] === '') return "User has no TOKEN: $s";
        if (!isset($u['ID']) || $u['ID'] !== $MEMBER_ID) return "User ID is not '$MEMBER_ID': $s";
        $token = $u['TOKEN'];
        return $wire('AuthenticateUser');
    });
    $noToken = function () { return 'no TOKEN from AuthenticateUser (see the check above)'; };

    // The plugin signs the visitor in only from THIS result: a USER_COOKIE and a non-empty EMAIL.
    run("$p-authenticate-token", $token === null ? $noToken : function () use ($call, $wire, $PW, $MEMBER_ID, $EMAIL, $token) {
        $s = $call('AuthenticateToken', array('securityPassword' => $PW, 'token' => $token));
        $u = user(ibridge($s), $s);
        if (is_string($u)) return $u;
        if (!isset($u['ID']) || $u['ID'] !== $MEMBER_ID) return "User ID is not '$MEMBER_ID': $s";
        if (!isset($u['EMAIL']) || trim($u['EMAIL']) === '') return "User has no non-empty EMAIL: $s";
        if ($u['EMAIL'] !== $EMAIL) return "EMAIL is not '$EMAIL': $s";
        if (!isset($u['USER_COOKIE']) || $u['USER_COOKIE'] === '') return "User has no USER_COOKIE: $s";
        $pairs = explode('|', $u['USER_COOKIE']);
        $names = array();
        foreach ($pairs as $pair) {
            if (!preg_match('/^([^=|\s;,]+)=([^|]*)$/', $pair, $m)) return "USER_COOKIE part '$pair' is not name=value: {$u['USER_COOKIE']}";
            $names[] = $m[1];
        }
        if (!in_array("Token=$token", $pairs, true)) return "USER_COOKIE has no 'Token=$token' pair: {$u['USER_COOKIE']}";
        if (count(array_unique($names)) !== count($names)) return "USER_COOKIE names a cookie twice: {$u['USER_COOKIE']}";
        return $wire('AuthenticateToken');
    });

    // The plugin itself does not read the SoapClient's result but the raw envelope of the same call: it
    // rewrites encoding="UTF-16" (any case) and "iBridge" (any case) in the whole envelope, finds
    // AUTHENTICATETOKENRESULT with xml_parse_into_struct (which folds names to upper case) and loads its
    // text with SimpleXML. The inner declaration therefore has to reach it with plain quotes.
    run("$p-raw-envelope", $token === null ? $noToken : function () use ($cl, $call, $PW, $token) {
        $call('AuthenticateToken', array('securityPassword' => $PW, 'token' => $token));
        $raw = (string)$cl->__getLastResponse();
        $rewritten = preg_replace(array('/encoding="UTF-16"/i', '/iBridge/i'), array('encoding="UTF-8"', 'ibridge'), $raw);
        $values = $map = array();
        $parser = xml_parser_create();
        $ok = xml_parse_into_struct($parser, $rewritten, $values, $map);
        xml_parser_free($parser);
        if (!$ok) return "xml_parse_into_struct failed on the envelope: $raw";
        if (!isset($map['AUTHENTICATETOKENRESULT'][0])) return "no AuthenticateTokenResult in the envelope: $raw";
        $v = $values[$map['AUTHENTICATETOKENRESULT'][0]];
        $inner = isset($v['value']) ? trim($v['value']) : '';
        libxml_use_internal_errors(true); libxml_clear_errors();
        $doc = simplexml_load_string($inner, 'SimpleXMLElement', LIBXML_ERR_FATAL | LIBXML_PARSEHUGE);
        if ($doc === false) {
            $errs = array_map(function ($e) { return trim($e->message); }, libxml_get_errors()); libxml_clear_errors();
            return 'the result text does not load after the rewrite (' . implode('; ', $errs) . "): $inner";
        }
        if (!isset($doc->User)) return "expected <User> in the result text: $inner";
        $a = attrs($doc->User);
        if (!isset($a['TOKEN']) || $a['TOKEN'] !== $token) return "User/@TOKEN is not the token asked about: $inner";
        if (!isset($a['EMAIL']) || trim($a['EMAIL']) === '' || !isset($a['USER_COOKIE'])) return "User lacks EMAIL or USER_COOKIE: $inner";
        return true;
    });

    run("$p-login", function () use ($call, $wire, $PW, $USER, $UPW, $MEMBER_ID) {
        $s = $call('Login', array('securityPassword' => $PW, 'username' => $USER, 'password' => $UPW, 'authenticationToken' => ''));
        $u = user(ibridge($s), $s);
        if (is_string($u)) return $u;
        if (!isset($u['ID']) || $u['ID'] !== $MEMBER_ID) return "User ID is not '$MEMBER_ID': $s";
        if (array_key_exists('TOKEN', $u)) return "Login's User has a TOKEN: $s";
        return $wire('Login');
    });

    // The Drupal wrapper's sign-out: any non-empty parsed iBridge document without Errors is success.
    run("$p-delete-session", $token === null ? $noToken : function () use ($call, $wire, $PW, $token) {
        $s = $call('DeleteUserSession', array('securityPassword' => $PW, 'token' => $token));
        $doc = ibridge($s);
        $d = errorDescription($doc);
        if ($d !== null) return "DeleteUserSession answered an Error: $d";
        if (count($doc->children()) === 0 && count($doc->attributes()) === 0) return "the iBridge document is empty: $s";
        return $wire('DeleteUserSession');
    });

    // A page view after sign-out: an Error whose Description contains "token" signs the visitor out.
    run("$p-token-after-delete", $token === null ? $noToken : function () use ($call, $PW, $token) {
        $s = $call('AuthenticateToken', array('securityPassword' => $PW, 'token' => $token));
        $d = errorDescription(ibridge($s));
        if ($d === null) return "expected an Error after DeleteUserSession, got: $s";
        return preg_match('/token/i', $d) ? true : "Error Description does not match /token/i: '$d'";
    });

    // The login form shows wrong credentials when the Description matches /invalid username/i.
    run("$p-wrong-password", function () use ($call, $PW, $USER, $UPW) {
        $s = $call('AuthenticateUser', array('securityPassword' => $PW, 'username' => $USER, 'password' => $UPW . '-wrong', 'authenticationToken' => ''));
        $d = errorDescription(ibridge($s));
        if ($d === null) return "expected an Error for a wrong password, got: $s";
        return preg_match('/invalid username/i', $d) ? true : "Error Description does not match /invalid username/i: '$d'";
    });

    run("$p-bad-security-password", function () use ($cl, $BADPW, $USER, $UPW) {
        try {
            $r = $cl->__soapCall('AuthenticateUser', array('parameters' => array('securityPassword' => $BADPW, 'username' => $USER, 'password' => $UPW, 'authenticationToken' => '')));
            return 'expected SoapFault, got ' . var_export($r, true);
        } catch (SoapFault $f) {
            if ($f->faultcode === 'HTTP') return 'SoapFault is a transport error, not a SOAP fault: ' . $f->getMessage();
            return $f->getMessage() !== '' ? true : 'SoapFault without faultstring';
        }
    });
}
exit(0);
