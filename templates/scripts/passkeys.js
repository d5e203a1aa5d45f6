/*
 * Passkeys on the sign-in and account pages, through @simplewebauthn/browser (served beside this script). Each form
 * marked for it is hidden until this runs in a browser that has WebAuthn: anywhere else the pages are as they were.
 * A form asks its data-options address for a ceremony's options, runs the ceremony, and is submitted with the
 * browser's answer in its `response` field; the service answers with a page, as for any form.
 */
(function () {
  'use strict';
  var helper = window.SimpleWebAuthnBrowser;
  if (!helper || !helper.browserSupportsWebAuthn()) return;

  /** A refusal the service answered the options with, in its words. */
  function ServiceRefusal(message) {
    this.name = 'ServiceRefusal';
    this.message = message;
  }
  ServiceRefusal.prototype = Object.create(Error.prototype);

  function showProblem(form, text) {
    var box = form.querySelector('.passkey-problem');
    box.textContent = text;
    box.hidden = false;
    box.focus();
  }

  function optionsFor(form) {
    return fetch(form.getAttribute('data-options'), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: form.elements.csrf.value }).toString(),
    }).then(function (res) {
      return res.json().then(function (body) {
        if (!res.ok) throw new ServiceRefusal(body.error);
        return body.options;
      });
    });
  }

  function submitWith(form, answer) {
    form.elements.response.value = JSON.stringify(answer);
    form.submit();
  }

  /** Another ceremony took this one's place (AbortError): nothing to say. Cancelled, or failed: say so. */
  function failed(form, error) {
    if (error.name === 'AbortError') return;
    var refused = error.name === 'NotAllowedError' || (error.cause && error.cause.name === 'NotAllowedError');
    var exists = error.name === 'InvalidStateError';
    // The service's own refusals are its words (an Error with its message); anything else is a failure to say plainly.
    var own = error instanceof ServiceRefusal;
    showProblem(form, exists ? form.getAttribute('data-exists') : refused ? form.getAttribute('data-cancelled') : own ? error.message : form.getAttribute('data-failed'));
  }

  var signIn = document.getElementById('passkey-signin');
  if (signIn) {
    var remember = document.getElementById('remember');
    var authenticate = function (autofill) {
      return optionsFor(signIn)
        .then(function (options) {
          return helper.startAuthentication({ optionsJSON: options, useBrowserAutofill: autofill });
        })
        .then(function (answer) {
          signIn.elements.remember.disabled = !(remember && remember.checked);
          submitWith(signIn, answer);
        });
    };
    signIn.hidden = false;
    signIn.querySelector('button').addEventListener('click', function () {
      authenticate(false).catch(function (error) {
        failed(signIn, error);
      });
    });
    // Passkeys offered in the username field's suggestions: a browser without them, or a member who types a
    // password, never hears of it.
    helper.browserSupportsWebAuthnAutofill().then(function (supported) {
      if (supported) authenticate(true).catch(function () {});
    });
  }

  var add = document.getElementById('passkey-add');
  if (add) {
    add.hidden = false;
    add.querySelector('button').addEventListener('click', function () {
      optionsFor(add)
        .then(function (options) {
          return helper.startRegistration({ optionsJSON: options });
        })
        .then(function (answer) {
          submitWith(add, answer);
        })
        .catch(function (error) {
          failed(add, error);
        });
    });
  }
})();
