// SPDX-License-Identifier: BSD-2-Clause

/* Connects Homa to the rest of Linux: module init and
 * exit, the socket interface for IPv4 and IPv6, and the handlers that IP
 * calls for protocol IPPROTO_HOMA.
 */

#include <linux/module.h>
#include <linux/poll.h>
#include <net/inet_common.h>
#include <net/net_namespace.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/transp_v6.h>

#include "homa_impl.h"
#include "homa_pacer.h"
#include "homa_peer.h"
#include "homa_pool.h"
#include "homa_rpc.h"
#include "homa_sock.h"
#include "homa_timer.h"

static int homa_bind(struct socket *sock, struct sockaddr *addr, int addr_len);
static int homa_sendmsg(struct sock *sk, struct msghdr *msg, size_t length);
static int homa_shutdown(struct socket *sock, int how);
static __poll_t homa_poll(struct file *file, struct socket *sock,
			  struct poll_table_struct *wait);
static int homa_sk_init(struct sock *sk);
static void homa_sk_destroy(struct sock *sk);
static void homa_close(struct sock *sk, long timeout);
static int homa_setsockopt(struct sock *sk, int level, int optname,
			   sockptr_t optval, unsigned int optlen);
static int homa_getsockopt(struct sock *sk, int level, int optname,
			   char __user *optval, int __user *optlen);
static int homa_ioctl(struct sock *sk, int cmd, int *karg);
static int homa_socket_ioctl(struct socket *sock, unsigned int cmd,
			     unsigned long arg);
/* HOMAIOCABORT: abort one client RPC or all of them. */
static int homa_ioc_abort(struct homa_sock *hsk, void __user *uarg)
{
	struct homa_rpc *rpc, *tmp;
	struct homa_abort_args args;
	bool ended = false;
	int err = 0;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args._pad1 || args._pad2[0] || args._pad2[1] || args.error < 0 ||
	    args.error > MAX_ERRNO)
		return -EINVAL;
	spin_lock_bh(&hsk->lock);
	if (args.id == 0) {
		list_for_each_entry_safe(rpc, tmp, &hsk->active_rpcs,
					 active_links) {
			if (!homa_is_client(rpc->id))
				continue;
			if (args.error) {
				homa_rpc_abort(rpc, -args.error);
			} else if (!rpc->handed_off) {
				homa_rpc_end(rpc);
				ended = true;
			}
		}
	} else {
		rpc = homa_is_client(args.id) ?
		      homa_find_client_rpc(hsk, args.id) : NULL;
		if (!rpc) {
			err = -EINVAL;
		} else if (args.error) {
			homa_rpc_abort(rpc, -args.error);
		} else if (!rpc->handed_off) {
			homa_rpc_end(rpc);
			ended = true;
		}
	}
	/* A thread may be waiting in recvmsg for an RPC that is gone now:
	 * wake it, and it returns -EINVAL as recvmsg does for an id that
	 * does not exist (a later call sees the same).
	 */
	if (ended)
		homa_sock_wake_all_receivers(hsk);
	spin_unlock_bh(&hsk->lock);
	homa_rpc_reap_some(hsk);
	return err;
}

static int homa_socket_ioctl(struct socket *sock, unsigned int cmd,
			     unsigned long arg)
{
	struct homa_sock *hsk = homa_sk(sock->sk);

	if (cmd == HOMAIOCABORT)
		return homa_ioc_abort(hsk, (void __user *)arg);
	if (homa_sock_is_v6(hsk))
		return inet6_ioctl(sock, cmd, arg);
	return inet_ioctl(sock, cmd, arg);
}

static int homa_hash(struct sock *sk);
static void homa_unhash(struct sock *sk);
static int homa_disconnect(struct sock *sk, int flags);
static int homa_backlog_rcv(struct sock *sk, struct sk_buff *skb);

static const struct proto_ops homa_proto_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= inet_release,
	.bind		= homa_bind,
	.connect	= inet_dgram_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= inet_getname,
	.poll		= homa_poll,
	.ioctl		= homa_socket_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= homa_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= inet_sendmsg,
	.recvmsg	= inet_recvmsg,
	.mmap		= sock_no_mmap,
};

static struct proto homa_prot = {
	.name		= "HOMA",
	.owner		= THIS_MODULE,
	.close		= homa_close,
	.connect	= ip4_datagram_connect,
	.disconnect	= homa_disconnect,
	.ioctl		= homa_ioctl,
	.init		= homa_sk_init,
	.destroy	= homa_sk_destroy,
	.setsockopt	= homa_setsockopt,
	.getsockopt	= homa_getsockopt,
	.sendmsg	= homa_sendmsg,
	.recvmsg	= homa_recvmsg,
	.backlog_rcv	= homa_backlog_rcv,
	.hash		= homa_hash,
	.unhash		= homa_unhash,
	.obj_size	= sizeof(struct homa_sock),
	.no_autobind	= 1,
};

/*
 * IPv6: the IPv4 protocol with what differs (homa_v6_prot_init()), as
 * MPTCP builds its own, so the two cannot drift apart. The socket calls
 * stay two const tables (checkpatch wants struct proto_ops const; the
 * copy would be writable for the module's life).
 */
static const struct proto_ops homav6_proto_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= inet6_release,
	.bind		= homa_bind,
	.connect	= inet_dgram_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= inet6_getname,
	.poll		= homa_poll,
	.ioctl		= homa_socket_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= homa_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= inet_sendmsg,
	.recvmsg	= inet_recvmsg,
	.mmap		= sock_no_mmap,
};

static struct proto homav6_prot;

static struct inet_protosw homa_protosw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_HOMA,
	.prot		= &homa_prot,
	.ops		= &homa_proto_ops,
	.flags		= INET_PROTOSW_REUSE,
};

static struct inet_protosw homav6_protosw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_HOMA,
	.prot		= &homav6_prot,
	.ops		= &homav6_proto_ops,
	.flags		= INET_PROTOSW_REUSE,
};

static const struct net_protocol homa_net_protocol = {
	.handler	= homa_softirq,
	.err_handler	= homa_err_handler_v4,
	.no_policy	= 1,
};

static const struct inet6_protocol homav6_net_protocol = {
	.handler	= homa_softirq,
	.err_handler	= homa_err_handler_v6,
	.flags		= INET6_PROTO_NOPOLICY | INET6_PROTO_FINAL,
};

static int homa_bind(struct socket *sock, struct sockaddr *addr, int addr_len)
{
	struct homa_sock *hsk = homa_sk(sock->sk);
	u16 port;

	if (homa_sock_is_v6(hsk)) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)addr;

		if (addr_len < (int)sizeof(*sin6))
			return -EINVAL;
		if (sin6->sin6_family != AF_INET6)
			return -EAFNOSUPPORT;
		port = ntohs(sin6->sin6_port);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)addr;

		if (addr_len < (int)sizeof(*sin))
			return -EINVAL;
		if (sin->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		port = ntohs(sin->sin_port);
	}
	return homa_sock_bind(hsk, port);
}

static int homa_shutdown(struct socket *sock, int how)
{
	homa_sock_shutdown(homa_sk(sock->sk));
	return 0;
}

static __poll_t homa_poll(struct file *file, struct socket *sock,
			  struct poll_table_struct *wait)
{
	struct homa_sock *hsk = homa_sk(sock->sk);
	struct sock *sk = sock->sk;
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	/* Writable while less than half the send budget is used, as UDP. */
	if (sock_writeable(sk)) {
		mask |= EPOLLOUT | EPOLLWRNORM;
	} else {
		sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
		WRITE_ONCE(hsk->wmem_wanted, true);
		/* Freed memory may have missed the flag: look again. */
		smp_mb();
		if (sock_writeable(sk))
			mask |= EPOLLOUT | EPOLLWRNORM;
	}
	spin_lock_bh(&hsk->lock);
	if (hsk->shutdown || !list_empty(&hsk->ready_requests) ||
	    !list_empty(&hsk->ready_responses))
		mask |= EPOLLIN | EPOLLRDNORM;
	spin_unlock_bh(&hsk->lock);
	return mask;
}

static int homa_sk_init(struct sock *sk)
{
	return homa_sock_init(homa_sk(sk), &homa_global);
}

static void homa_sk_destroy(struct sock *sk)
{
	homa_sock_destroy(homa_sk(sk));
}

static void homa_close(struct sock *sk, long timeout)
{
	sk_common_release(sk);
}

static int homa_disconnect(struct sock *sk, int flags)
{
	return -EOPNOTSUPP;
}

static int homa_ioctl(struct sock *sk, int cmd, int *karg)
{
	return -EINVAL;
}

/* The destination of a sendmsg, checked. */
static int homa_get_dest(struct homa_sock *hsk, struct msghdr *msg,
			 struct in6_addr *addr, u16 *port)
{
	if (!msg->msg_name)
		return -EINVAL;
	if (homa_sock_is_v6(hsk)) {
		DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, msg->msg_name);

		if (msg->msg_namelen < (int)sizeof(*sin6))
			return -EINVAL;
		if (sin6->sin6_family != AF_INET6)
			return -EAFNOSUPPORT;
		*addr = sin6->sin6_addr;
		*port = ntohs(sin6->sin6_port);
	} else {
		DECLARE_SOCKADDR(struct sockaddr_in *, sin, msg->msg_name);

		if (msg->msg_namelen < (int)sizeof(*sin))
			return -EINVAL;
		if (sin->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		*addr = homa_ipv4_to_ipv6(sin->sin_addr.s_addr);
		*port = ntohs(sin->sin_port);
	}
	return 0;
}

/*
 * homa_sendmsg() - send a request or a response (struct homa_sendmsg_args
 * in user memory at msg_control, msg_controllen 0).
 * @sk:     the socket.
 * @msg:    the message and its destination.
 * @length: bytes in the message.
 *
 * The message is charged to the socket's send budget: while the outgoing
 * memory of its RPCs is at or above sk_sndbuf, sendmsg waits for RPCs to
 * be freed (up to SO_SNDTIMEO), or fails with -EAGAIN under MSG_DONTWAIT.
 *
 * Return: 0 or a negative errno. Answering an RPC that no longer exists
 * is not an error.
 */
static int homa_sendmsg(struct sock *sk, struct msghdr *msg, size_t length)
{
	struct homa_sendmsg_args __user *uargs;
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_sendmsg_args args;
	struct homa_peer *peer;
	struct homa_rpc *rpc;
	struct in6_addr addr;
	u8 *data = NULL;
	int seg, err;
	u16 dport;

	if (!msg->msg_control_is_user || msg->msg_controllen != 0)
		return -EINVAL;
	uargs = msg->msg_control_user;
	if (copy_from_user(&args, uargs, sizeof(args)))
		return -EFAULT;
	if (length == 0 || length > HOMA_MAX_MESSAGE_LENGTH)
		return -EINVAL;
	err = homa_get_dest(hsk, msg, &addr, &dport);
	if (err)
		return err;
	if (args.id == 0 && dport == 0)
		return -EINVAL;
	if (args.id != 0 && homa_is_client(args.id))
		return -EINVAL;
	/* A reference while we work; a new client RPC takes its own. A
	 * response needs none (its RPC holds one), but the lookup is cheap.
	 */
	peer = homa_peer_get(hsk->homa, sock_net(sk), &addr, GFP_KERNEL);
	if (!peer)
		return -ENOMEM;
	seg = homa_rpc_mtu_seg(hsk, peer);
	if (seg < 0) {
		err = seg;
		goto put_peer;
	}
	/* The send budget (sk_sndbuf, HOMA_DEFAULT_SNDBUF) and the memory
	 * cgroup (__GFP_ACCOUNT) both see the message.
	 */
	err = homa_sock_wait_wmem(hsk, msg->msg_flags & MSG_DONTWAIT);
	if (err)
		goto put_peer;
	data = kvmalloc(length, GFP_KERNEL_ACCOUNT);
	if (!data) {
		err = -ENOMEM;
		goto put_peer;
	}
	if (!copy_from_iter_full(data, length, &msg->msg_iter)) {
		err = -EFAULT;
		goto free_data;
	}

	spin_lock_bh(&hsk->lock);
	if (hsk->shutdown) {
		err = -ESHUTDOWN;
		goto unlock;
	}
	if (args.id == 0) {
		rpc = homa_rpc_new_client(hsk, peer, dport);
		if (!rpc) {
			err = -ENOMEM;
			goto unlock;
		}
		rpc->completion_cookie = args.completion_cookie;
	} else {
		rpc = homa_find_server_rpc(hsk, &addr, dport, args.id);
		if (!rpc) {
			err = 0;
			goto unlock;
		}
		if (rpc->state != RPC_IN_SERVICE) {
			err = -EINVAL;
			goto unlock;
		}
		rpc->state = RPC_OUTGOING;
	}
	homa_message_out_init(rpc, data, length, seg);
	/* Given back by homa_rpc_free_mem(). */
	homa_rpc_wmem_charge(rpc);
	data = NULL;
	if (args.id == 0) {
		homa_rpc_hold(rpc);
		spin_unlock_bh(&hsk->lock);
		err = put_user(rpc->id, &uargs->id);
		spin_lock_bh(&hsk->lock);
		homa_rpc_put(rpc);
		if (err) {
			homa_rpc_end(rpc);
			goto unlock;
		}
	}
	homa_xmit_data(rpc, false);
	err = 0;

unlock:
	spin_unlock_bh(&hsk->lock);
	homa_rpc_reap_some(hsk);
free_data:
	kvfree(data);
put_peer:
	homa_peer_put(peer);
	return err;
}

static int homa_hash(struct sock *sk)
{
	return 0;
}

static void homa_unhash(struct sock *sk)
{
}

static int homa_backlog_rcv(struct sock *sk, struct sk_buff *skb)
{
	kfree_skb(skb);
	return 0;
}

static int homa_setsockopt(struct sock *sk, int level, int optname,
			   sockptr_t optval, unsigned int optlen)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_rcvbuf_args args;
	int err;

	if (level != IPPROTO_HOMA || optname != SO_HOMA_RCVBUF)
		return -ENOPROTOOPT;
	if (optlen != sizeof(args))
		return -EINVAL;
	if (copy_from_sockptr(&args, optval, sizeof(args)))
		return -EFAULT;
	if (args.start & ~PAGE_MASK)
		return -EINVAL;
	if (args.length < 2 * HOMA_BPAGE_SIZE ||
	    args.length > HOMA_MAX_REGION_LENGTH)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(args.start), args.length))
		return -EFAULT;
	err = homa_pool_set_region(hsk, args.start, args.length);
	if (err)
		return err;
	/* Messages may have been waiting for a buffer region. */
	spin_lock_bh(&hsk->lock);
	if (!hsk->shutdown)
		homa_rpc_check_waiting(hsk);
	spin_unlock_bh(&hsk->lock);
	return 0;
}

static int homa_getsockopt(struct sock *sk, int level, int optname,
			   char __user *optval, int __user *optlen)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_rcvbuf_args args;
	int len;

	if (level != IPPROTO_HOMA || optname != SO_HOMA_RCVBUF)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < (int)sizeof(args))
		return -EINVAL;
	spin_lock_bh(&hsk->lock);
	args.start = hsk->pool.region;
	args.length = hsk->pool.length;
	spin_unlock_bh(&hsk->lock);
	len = sizeof(args);
	if (put_user(len, optlen))
		return -EFAULT;
	if (copy_to_user(optval, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

/* A network namespace comes into being (or exists when the module loads):
 * its parameters, net.homa table and counters.
 */
static int __net_init homa_net_init(struct net *net)
{
	struct homa_net *hnet = homa_net(net);
	int err;

	err = homa_net_setup(hnet, net);
	if (err)
		return err;
	err = homa_metrics_net_init(hnet);
	if (err)
		homa_net_teardown(hnet);
	return err;
}

/* A network namespace is going away: free its peers (review L8), then its
 * table and counters. Peers hold no reference on their namespace (as
 * inet_peer); every socket of the namespace, and with it every RPC that
 * referred to one of its peers, is gone when this runs, so only the table
 * refers to them.
 */
static void __net_exit homa_net_exit(struct net *net)
{
	homa_peer_net_exit(&homa_global, net);
	homa_metrics_net_exit(homa_net(net));
	homa_net_teardown(homa_net(net));
}

static struct pernet_operations homa_net_ops = {
	.init = homa_net_init,
	.exit = homa_net_exit,
	.id = &homa_net_id,
	.size = sizeof(struct homa_net),
};

/*
 * Module init order. Everything a socket uses (the proto structs, the
 * packet handlers, GSO, each namespace's state (pernet: sysctls,
 * metrics), the module-wide sysctls, the timer and pacer threads)
 * is set up first; the socket types go last, IPv6 (which can fail)
 * before IPv4 (which cannot), so once a user can create a socket no step
 * can fail any more. Were a step to fail after that, sockets created
 * meanwhile would hold references to a module whose init failed, whose
 * memory is freed anyway. Each failure unwinds what was done, in reverse.
 * inet_add_protocol() and inet6_add_protocol() (and the offload calls)
 * return -1 when the protocol number is taken, e.g. by another Homa
 * build: that is -EBUSY, not -EPERM.
 */
static void __init homa_v6_prot_init(void)
{
	/* Copied before proto_register() fills in anything of its own. */
	homav6_prot = homa_prot;
	strscpy(homav6_prot.name, "HOMAv6", sizeof(homav6_prot.name));
	homav6_prot.connect = ip6_datagram_connect;
	homav6_prot.obj_size = sizeof(struct homa_v6_sock);
	homav6_prot.ipv6_pinfo_offset = offsetof(struct homa_v6_sock, inet6);
}

static int __init homa_load(void)
{
	struct homa *homa = &homa_global;
	int status;

	homa_v6_prot_init();
	homa_init(homa);
	homa_peertab_init(homa);
	status = register_pernet_subsys(&homa_net_ops);
	if (status)
		goto err_peertab;
	status = proto_register(&homa_prot, 1);
	if (status)
		goto err_pernet;
	status = proto_register(&homav6_prot, 1);
	if (status)
		goto err_prot;
	if (inet_add_protocol(&homa_net_protocol, IPPROTO_HOMA)) {
		status = -EBUSY;
		goto err_prot6;
	}
	if (inet6_add_protocol(&homav6_net_protocol, IPPROTO_HOMA)) {
		status = -EBUSY;
		goto err_proto4;
	}
	status = homa_offload_init();
	if (status)
		goto err_proto6;
	status = homa_sysctl_init(homa);
	if (status)
		goto err_offload;

	homa->timer_kthread = kthread_run(homa_timer_main, homa, "homa_timer");
	if (IS_ERR(homa->timer_kthread)) {
		status = PTR_ERR(homa->timer_kthread);
		homa->timer_kthread = NULL;
		goto err_sysctl;
	}
	homa->pacer_kthread = kthread_run(homa_pacer_main, homa, "homa_pacer");
	if (IS_ERR(homa->pacer_kthread)) {
		status = PTR_ERR(homa->pacer_kthread);
		homa->pacer_kthread = NULL;
		goto err_timer;
	}

	/* Last: from here on sockets can exist, and nothing fails. */
	status = inet6_register_protosw(&homav6_protosw);
	if (status)
		goto err_pacer;
	inet_register_protosw(&homa_protosw);
	return 0;

err_pacer:
	kthread_stop(homa->pacer_kthread);
	homa->pacer_kthread = NULL;
err_timer:
	kthread_stop(homa->timer_kthread);
	homa->timer_kthread = NULL;
err_sysctl:
	homa_sysctl_exit(homa);
err_offload:
	homa_offload_exit();
err_proto6:
	inet6_del_protocol(&homav6_net_protocol, IPPROTO_HOMA);
err_proto4:
	inet_del_protocol(&homa_net_protocol, IPPROTO_HOMA);
err_prot6:
	proto_unregister(&homav6_prot);
err_prot:
	proto_unregister(&homa_prot);
err_pernet:
	unregister_pernet_subsys(&homa_net_ops);
err_peertab:
	homa_peertab_destroy(homa);
	return status;
}

/* The reverse of homa_load(): no new sockets first (and no socket is
 * left, since each holds a module reference), then no more packets.
 */
static void __exit homa_unload(void)
{
	struct homa *homa = &homa_global;

	inet_unregister_protosw(&homa_protosw);
	inet6_unregister_protosw(&homav6_protosw);
	if (homa->pacer_kthread)
		kthread_stop(homa->pacer_kthread);
	if (homa->timer_kthread)
		kthread_stop(homa->timer_kthread);
	homa_sysctl_exit(homa);
	homa_offload_exit();
	inet6_del_protocol(&homav6_net_protocol, IPPROTO_HOMA);
	inet_del_protocol(&homa_net_protocol, IPPROTO_HOMA);
	proto_unregister(&homav6_prot);
	proto_unregister(&homa_prot);
	unregister_pernet_subsys(&homa_net_ops);
	homa_peertab_destroy(homa);
}

module_init(homa_load);
module_exit(homa_unload);

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Homa transport protocol");
MODULE_VERSION("1.0");

/* socket(AF_INET[6], SOCK_DGRAM, IPPROTO_HOMA) loads the module. */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_HOMA, 2 /* SOCK_DGRAM */);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_HOMA, 2 /* SOCK_DGRAM */);
