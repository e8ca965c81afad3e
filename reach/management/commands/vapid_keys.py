"""``python manage.py vapid_keys [--subject mailto:ops@example.org]``: a new VAPID key pair
for Web Push (py-vapid), printed as the environment lines to set (docs/operators/
configuration.md).  Nothing is stored: the operator puts the lines where the server's
environment comes from.  A server that changes its keys loses every browser's
subscription (they were made for the old public key): browsers subscribe again when
their player next presses "Enable notifications on this device"."""

from __future__ import annotations

import re

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from reach import push


class Command(BaseCommand):
    help = "Generate a VAPID key pair for Web Push and print the environment lines to set."

    def add_arguments(self, parser):
        parser.add_argument("--subject", default="",
                            help="The contact the push services may write to: mailto:address or an https: URL "
                                 "(UNO_VAPID_SUBJECT; by default a placeholder to edit).")

    def handle(self, *args, subject: str = "", **options):
        if subject and not re.match(r"^(mailto:[^@\s]+@[^@\s]+|https://\S+)$", subject):
            raise CommandError("--subject must be mailto:address or an https: URL")
        private, public = push.generate_vapid_keys()
        if getattr(settings, "UNO_VAPID_PRIVATE_KEY", ""):
            self.stderr.write("UNO_VAPID_PRIVATE_KEY is already set: replacing it ends every browser's "
                              "current push subscription (players enable notifications again).")
        self.stdout.write(f"UNO_VAPID_PRIVATE_KEY={private}")
        self.stdout.write(f"UNO_VAPID_PUBLIC_KEY={public}")
        self.stdout.write(f"UNO_VAPID_SUBJECT={subject or 'mailto:operator@example.org'}")
