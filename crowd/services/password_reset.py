"""Password resets: the request queues the work, a Celery worker looks the address up and mails
the link.

The request never looks the address up itself: a known address would cost it a user's row and
a mail (11 ms against 4 ms for an unknown one, once measured), enough to tell from outside which
addresses have accounts. Queued, both cost the request one message with the address in it.
"""

from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import EmailMultiAlternatives
from django.template import loader

from paracrowd.celery import enqueue

SEND_TASK = "crowd.tasks.send_password_reset"


def password_reset_request(*, email: str, domain: str, use_https: bool) -> None:
    """Queue a reset link for ``email`` once the transaction commits, whether or not an
    account has that address; the link points at ``domain`` (the host the form was posted
    to, which ALLOWED_HOSTS vouches for)."""
    enqueue(SEND_TASK, email, domain, use_https)


class _ResetMail(PasswordResetForm):
    """Django's reset form, except that a mail that cannot be sent raises (Django's logs it
    and carries on) so that the task tries again, and the mails sent are counted."""

    sent = 0

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        body = loader.render_to_string(email_template_name, context)
        EmailMultiAlternatives(subject, body, from_email, [to_email]).send()
        self.sent += 1


def password_reset_send(*, email: str, domain: str, use_https: bool) -> int:
    """Mail a reset link to each active account with a usable password whose address is
    ``email`` (as Django matches it: case and Unicode forms aside); nothing for an address no
    such account has. Returns the number of mails sent. An address that is not one sends
    nothing."""
    form = _ResetMail({"email": email})
    if not form.is_valid():
        return 0
    form.save(domain_override=domain, use_https=use_https)
    return form.sent
